package store

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// The plan TestHelperWriter runs: two variants, four repetitions each,
// interleaved. When the parent means to kill it in the middle of a write,
// the trial at bigTrial stores bigSamples raw samples, so that its write
// takes long enough (a second or more) to be killed in the middle; a child
// that is not to be killed there writes it as small as the others.
const (
	planTrials = 8
	bigTrial   = 3
	planSpec   = "version: 1\nname: durability\n"
)

var bigSamples = map[bool]int{false: 1_000_000, true: 100_000}[raceEnabled]

func planTrial(k int) Trial {
	return Trial{Variant: []string{"a", "b"}[k%2], Level: record.Level{Rate: 100}, Rep: 1 + k/2}
}

// TestKillDuringWrites runs the plan in a child process and kills it with
// SIGKILL at several points, resuming the plan each time: after no run,
// after the first, in the middle of a big run's write and after the fifth.
// After every kill the file must open, pass SQLite's integrity check and
// hold whole runs only, none lost; at the end every trial has exactly one.
func TestKillDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a million samples; make test runs it")
	}
	path := t.TempDir() + "/results.db"
	const midBig = "mid big write"
	stages := []struct {
		name  string
		until string        // kill after the child prints this line
		delay time.Duration // and after this much more time
	}{
		{"after 0 runs", "ready 0", 0},
		{"after 1 run", "committed 1", 0},
		{midBig, fmt.Sprintf("writing %d", bigTrial), 200 * time.Millisecond},
		{"after 5 runs", "committed 5", 0},
		{"to the end", "", 0},
	}
	committed := 0
	for _, st := range stages {
		env := []string{"LATLAB_STORE_WRITER=" + path}
		if st.name == midBig {
			env = append(env, "LATLAB_STORE_BIG=1")
		}
		cmd, lines := startChild(t, "TestHelperWriter", env...)
		killed := false
		for lines.Scan() {
			line, ok := strings.CutPrefix(lines.Text(), "helper: ")
			if !ok {
				continue
			}
			if _, err := fmt.Sscanf(line, "committed %d", &committed); err == nil {
				t.Logf("%s: committed %d", st.name, committed)
			}
			if st.until != "" && line == st.until {
				time.Sleep(st.delay)
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killed = true
				break
			}
		}
		err := cmd.Wait()
		switch {
		case st.until != "" && !killed:
			t.Fatalf("%s: the child ended (%v) before printing %q", st.name, err, st.until)
		case st.until == "" && err != nil:
			t.Fatalf("%s: the child failed: %v", st.name, err)
		}
		runs := checkWhole(t, path)
		// The kill may land after a commit and before its line is read.
		if runs < committed || runs > committed+1 {
			t.Errorf("%s: %d runs in the file, but the child had committed %d", st.name, runs, committed)
		}
		if st.name == midBig && runs > bigTrial {
			t.Errorf("%s: the big run was committed before the kill; make it bigger", st.name)
		}
		committed = runs
	}
	if committed != planTrials {
		t.Errorf("%d runs at the end, want %d", committed, planTrials)
	}
}

// TestHelperWriter is TestKillDuringWrites's child: it resumes the plan in
// the database named by $LATLAB_STORE_WRITER and reports its progress on
// stdout.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv("LATLAB_STORE_WRITER")
	if path == "" {
		t.Skip("runs as TestKillDuringWrites's child")
	}
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exp, err := db.FindExperiment(ctx, SpecHash(planSpec))
	if err != nil {
		exp, err = db.CreateExperiment(ctx, Experiment{Name: "durability", Spec: planSpec})
	}
	if err != nil {
		t.Fatal(err)
	}
	done, err := db.CompletedTrials(ctx, exp.ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Trial]bool{}
	for _, tr := range done {
		seen[tr] = true
	}
	fmt.Printf("helper: ready %d\n", len(done))
	small := recorded(t, time.Now(), 2000, 7)
	total := len(done)
	for k := range planTrials {
		tr := planTrial(k)
		if seen[tr] {
			continue
		}
		res := small
		if k == bigTrial && os.Getenv("LATLAB_STORE_BIG") != "" {
			res = withSamples(small, bigSamples)
		}
		fmt.Printf("helper: writing %d\n", k)
		if _, err := db.WriteRun(ctx, exp.ID, info(tr, k), res, small, nil, nil); err != nil {
			t.Fatal(err)
		}
		total++
		fmt.Printf("helper: committed %d\n", total)
		// A real plan runs the next trial's load now, for seconds; this
		// gives the parent time to kill between runs as well as during one.
		time.Sleep(100 * time.Millisecond)
	}
}

// withSamples returns a copy of r holding n raw samples, made by repeating
// r's own at later times.
func withSamples(r *record.Result, n int) *record.Result {
	c := *r
	c.Raw = make([]record.Raw, n)
	span := r.Raw[len(r.Raw)-1].Intended + time.Millisecond
	for i := range c.Raw {
		s := r.Raw[i%len(r.Raw)]
		shift := time.Duration(i/len(r.Raw)) * span
		s.Intended, s.Sent, s.Done = s.Intended+shift, s.Sent+shift, s.Done+shift
		c.Raw[i] = s
	}
	c.RawDropped = 0
	return &c
}

// checkWhole opens the database at path after a crash and checks it: the
// file is intact and every run in it is whole. It returns the number of
// runs.
func checkWhole(t *testing.T, path string) int {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopening after the crash: %v", err)
	}
	defer db.Close()
	var ok string
	if err := db.r.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity check: %q, %v", ok, err)
	}
	if n := count(t, db, `SELECT count(*) FROM pragma_foreign_key_check`); n != 0 {
		t.Errorf("%d rows break a foreign key", n)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT id, variant, rep FROM runs r WHERE
		(SELECT count(*) FROM samples WHERE run_id = r.id) != r.samples
		OR (SELECT count(*) FROM histograms WHERE run_id = r.id AND phase = 'measure')
			!= iif(r.summary IS NULL, 0, 5)
		OR (SELECT count(*) FROM intervals WHERE run_id = r.id AND phase = 'measure')
			!= coalesce(json_array_length(r.summary, '$.intervals'), 0)
		OR (SELECT count(*) FROM intervals WHERE run_id = r.id AND phase = 'warmup')
			!= coalesce(json_array_length(r.warmup, '$.intervals'), 0)
		OR (SELECT count(*) FROM steps WHERE run_id = r.id)
			!= coalesce(json_array_length(r.summary, '$.steps'), 0)`)
	if err != nil {
		t.Fatal(err)
	}
	defer discard(rows)
	for rows.Next() {
		var id, rep int
		var variant string
		if err := rows.Scan(&id, &variant, &rep); err != nil {
			t.Fatal(err)
		}
		t.Errorf("run %d (%s rep %d) is not whole", id, variant, rep)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	dups := count(t, db, `SELECT count(*) FROM (SELECT 1 FROM runs
		GROUP BY experiment_id, variant, rate, concurrency, rep HAVING count(*) > 1)`)
	if dups != 0 {
		t.Errorf("%d trials have more than one run", dups)
	}
	return int(count(t, db, `SELECT count(*) FROM runs`))
}
