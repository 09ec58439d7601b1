package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// TestPendingRoundTrip keeps a run in a side file and imports it: the
// database then holds every row of it as WriteRun would have written them,
// replacing the trial's interrupted run, and the side file is gone. A side
// file of an experiment the database lacks brings the experiment along;
// one of a trial already done is left out.
func TestPendingRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	ref, _ := openTemp(t)
	exp := newExperiment(t, db, "pending", "version: 1\n")
	refExp, err := ref.CreateExperiment(ctx, exp)
	if err != nil {
		t.Fatal(err)
	}
	res, warm := recorded(t, time.Now(), 3000, 1), recorded(t, time.Now(), 500, 2)
	probes := []ProbePoint{{Probe: "process", Series: "cpu_percent", Labels: map[string]string{"node": "root"}, Time: res.Start.Add(time.Second), Value: 40}}
	profiles := []Profile{{Target: "root", Kind: "heap", TakenAt: res.Start, Data: []byte{1, 2, 3}, Unit: "bytes",
		Top: []ProfileFunc{{Function: "main.f", Flat: 10, Cum: 20}}}}
	tr := Trial{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 2}
	in := info(tr, 7)
	in.Flags = []Flag{{Name: "trend", Reason: "rises"}}
	refID, err := ref.WriteRun(ctx, refExp.ID, in, res, warm, probes, profiles)
	if err != nil {
		t.Fatal(err)
	}
	stopped := info(tr, 7)
	stopped.Status, stopped.Error = Interrupted, "interrupted"
	if _, err := db.WriteRun(ctx, exp.ID, stopped, nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}

	side, err := db.SavePending(ctx, exp, in, res, warm, probes, profiles)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%s.pending-%d-7.db", path, exp.ID); side != want {
		t.Errorf("side file %s, want %s", side, want)
	}
	ro, err := OpenReadOnly(ctx, side)
	if err != nil {
		t.Fatalf("the side file is not a results database: %v", err)
	}
	if exps, err := ro.Experiments(ctx); err != nil || len(exps) != 1 || exps[0].SpecHash != exp.SpecHash {
		t.Errorf("side file experiments %+v, %v; want a copy of experiment %d", exps, err, exp.ID)
	}
	ro.Close()
	if files, err := PendingFiles(path); err != nil || !slices.Equal(files, []string{side}) {
		t.Errorf("PendingFiles: %v, %v; want [%s]", files, err, side)
	}

	got, err := db.ImportPending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Imported{{File: side, Runs: []Trial{tr}}}, got); diff != "" {
		t.Errorf("imported (-want +got):\n%s", diff)
	}
	noSideFiles(t, path)
	runs, err := db.Runs(ctx, exp.ID)
	if err != nil || len(runs) != 1 || runs[0].Status != Done {
		t.Fatalf("runs after the import: %+v, %v; want the done run alone", runs, err)
	}
	if diff := cmp.Diff(dumpRun(t, ref, refID), dumpRun(t, db, runs[0].ID)); diff != "" {
		t.Errorf("imported run differs from one written directly (-want +got):\n%s", diff)
	}

	// Done already: left out.
	if _, err := db.SavePending(ctx, exp, in, res, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	// Of an experiment the database does not hold: brought along.
	gone := Experiment{ID: 42, Name: "gone", Spec: "other", CreatedAt: time.Now()}
	if _, err := db.SavePending(ctx, gone, info(tr, 0), res, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	got, err = db.ImportPending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Skipped)+len(got[1].Skipped) != 1 || len(got[0].Runs)+len(got[1].Runs) != 1 {
		t.Errorf("imported %+v, want one run skipped and one stored", got)
	}
	noSideFiles(t, path)
	exps, err := db.Experiments(ctx)
	if err != nil || len(exps) != 2 || exps[1].Name != "gone" {
		t.Fatalf("experiments %+v, %v; want %q added", exps, err, "gone")
	}
	if n := count(t, db, `SELECT count(*) FROM runs`); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
}

// noSideFiles fails the test if a side file of the database at path, or
// anything of one, is left in its directory.
func noSideFiles(t *testing.T, path string) {
	t.Helper()
	for _, n := range dirNames(t, filepath.Dir(path)) {
		if strings.Contains(n, PendingInfix) {
			t.Errorf("%s left beside %s", n, path)
		}
	}
}

// dumpRun returns every row of run id in every table that holds a run's
// rows, without the row and run IDs, in a stable order.
func dumpRun(t *testing.T, db *DB, id int64) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	for _, table := range []string{"runs", "intervals", "histograms", "steps", "samples", "probes", "profiles"} {
		key := "run_id"
		if table == "runs" {
			key = "id"
		}
		rows, err := db.r.QueryContext(ctx, `SELECT * FROM `+table+` WHERE `+key+` = ?`, id)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var parts []string
			for i, c := range cols {
				if c != "id" && c != "run_id" && c != "experiment_id" {
					parts = append(parts, fmt.Sprintf("%s=%v", c, vals[i]))
				}
			}
			out[table] = append(out[table], strings.Join(parts, " "))
		}
		rows.Close()
		slices.Sort(out[table])
		if len(out[table]) == 0 && table != "steps" {
			t.Errorf("run %d has no rows in %s: the dump compares nothing there", id, table)
		}
	}
	return out
}

// TestPendingKilledWriter imports the side files a writer killed while
// keeping a run may leave: an empty file, and one holding the experiment
// but not yet the run. Both bring nothing, and both go.
func TestPendingKilledWriter(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	empty, err := reservePending(path, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	half, err := reservePending(path, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	side, err := Open(ctx, half)
	if err != nil {
		t.Fatal(err)
	}
	newExperiment(t, side, "half", "spec")
	side.Close()
	got, err := db.ImportPending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Runs)+len(got[1].Runs) != 0 || got[0].File == got[1].File ||
		!slices.Contains([]string{empty, half}, got[0].File) || !slices.Contains([]string{empty, half}, got[1].File) {
		t.Errorf("imported %+v, want %s and %s, with no run", got, empty, half)
	}
	noSideFiles(t, path)
	if n := count(t, db, `SELECT count(*) FROM experiments`); n != 0 {
		t.Errorf("%d experiments brought in, want none", n)
	}
}
