package main

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite" // the driver sqlite3-style checks use

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// storedAttack is what a results database holds of attacks.
type storedAttack struct {
	exps []store.Experiment
	runs [][]store.Run // by experiment
}

// readDB opens path read-only and reads every experiment and run.
func readDB(t *testing.T, path string) storedAttack {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("store.OpenReadOnly: %v", err)
	}
	defer db.Close()
	var s storedAttack
	if s.exps, err = db.Experiments(ctx); err != nil {
		t.Fatal(err)
	}
	for _, e := range s.exps {
		runs, err := db.Runs(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		s.runs = append(s.runs, runs)
	}
	return s
}

// attackInto runs latlab attack args, which must succeed quietly.
func attackInto(t *testing.T, args ...string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"attack"}, args...)...)
	if code != exitOK || stderr != "" || stdout == "" {
		t.Fatalf("latlab attack %s: exit %d, stderr %q, stdout %q; want 0, nothing and the report",
			strings.Join(args, " "), code, stderr, stdout)
	}
}

func TestAttackDB(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	path := filepath.Join(t.TempDir(), "x.db")
	attackInto(t, srv.URL+"/a", "-n", "30", "-c", "2", "-o", path)

	got := readDB(t, path)
	if len(got.exps) != 1 || len(got.runs[0]) != 1 {
		t.Fatalf("%d experiments, runs %v; want 1 experiment of 1 run", len(got.exps), got.runs)
	}
	e, r := got.exps[0], got.runs[0][0]
	if e.Name != "attack" || e.SpecHash != store.SpecHash(e.Spec) {
		t.Errorf("experiment %q, spec hash %q; want attack and the hash of %q", e.Name, e.SpecHash, e.Spec)
	}
	for _, w := range []string{"latlab attack ", srv.URL + "/a", "--concurrency 2", "--requests 30", "--output " + path} {
		if !strings.Contains(e.Spec, w) {
			t.Errorf("spec %q does not hold %q", e.Spec, w)
		}
	}
	host, _ := os.Hostname()
	if p := e.Provenance; p.Host != host || p.GoVersion == "" || p.LatlabVersion == "" || p.CPUCount < 1 {
		t.Errorf("provenance %+v: want host %q, Go and latlab versions, CPUs", p, host)
	}
	type run struct {
		Trial    store.Trial
		Position int
		Status   store.Status
		Mode     string
		Requests int64
		Samples  int64
		Flags    int
	}
	want := run{store.Trial{Variant: "attack", Level: record.Level{Concurrency: 2}, Rep: 1}, 1, store.Done, "closed", 30, 30, 0}
	gotRun := run{r.Trial, r.Position, r.Status, r.Mode, 0, r.Samples, len(r.Flags)}
	if r.Summary != nil {
		gotRun.Requests = r.Summary.Requests
	}
	if diff := cmp.Diff(want, gotRun); diff != "" {
		t.Errorf("run (-want +got):\n%s", diff)
	}
	if !r.StartedAt.Before(r.EndedAt) || r.Origin.Before(r.StartedAt) || r.Origin.After(r.EndedAt) {
		t.Errorf("started %s, measured from %s, ended %s; want them in that order", r.StartedAt, r.Origin, r.EndedAt)
	}
	if n := len(srv.requests()); n != 30 {
		t.Errorf("server saw %d requests, want 30", n)
	}

	// As anyone reads it without latlab.
	sqldb, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	var (
		variant, status string
		rate            float64
		rep, samples    int
	)
	if err := sqldb.QueryRow(`SELECT variant, rate, rep, status FROM runs`).Scan(&variant, &rate, &rep, &status); err != nil {
		t.Fatal(err)
	}
	if err := sqldb.QueryRow(`SELECT count(*) FROM samples`).Scan(&samples); err != nil {
		t.Fatal(err)
	}
	if variant != "attack" || rate != 0 || rep != 1 || status != "done" || samples != 30 {
		t.Errorf("SELECT variant, rate, rep, status: %q %g %d %q, %d samples; want attack 0 1 done, 30",
			variant, rate, rep, status, samples)
	}
}

// TestAttackDBWarmup holds that an attack's stored summary counts its
// warm-up's requests, as its JSON does.
func TestAttackDBWarmup(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, time.Millisecond)
	path := filepath.Join(t.TempDir(), "x.db")
	attackInto(t, srv.URL, "--warmup", "200ms", "-n", "10", "-c", "2", "-o", path)
	got := readDB(t, path)
	if len(got.runs) != 1 || len(got.runs[0]) != 1 || got.runs[0][0].Summary == nil {
		t.Fatalf("runs %v, want 1 with a summary", got.runs)
	}
	sum := got.runs[0][0].Summary
	if n := int64(len(srv.requests())); sum.Requests != 10 || sum.WarmupRequests < 1 || n != sum.Requests+sum.WarmupRequests {
		t.Errorf("stored %d requests after %d of warm-up, server saw %d; want 10 after at least 1, all the server saw", sum.Requests, sum.WarmupRequests, n)
	}
}

func TestAttackDBOpenLoop(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	path := filepath.Join(t.TempDir(), "x.db")
	attackInto(t, srv.URL, "-r", "200", "-n", "20", "-o", path)
	attackInto(t, srv.URL, "-n", "10", "-c", "1", "--samples", "0", "-o", path)

	got := readDB(t, path)
	if len(got.exps) != 2 {
		t.Fatalf("%d experiments, want 2: each attack adds one", len(got.exps))
	}
	type run struct {
		Rate    float64
		Status  store.Status
		Samples int64
		Dropped int64
	}
	var runs []run
	for _, rs := range got.runs {
		for _, r := range rs {
			runs = append(runs, run{r.Rate, r.Status, r.Samples, r.SamplesDropped})
		}
	}
	want := []run{{200, store.Done, 20, 0}, {0, store.Done, 0, 0}}
	if diff := cmp.Diff(want, runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if got.exps[0].SpecHash == got.exps[1].SpecHash {
		t.Errorf("two command lines, one spec hash %s", got.exps[0].SpecHash)
	}
}

func TestAttackDBSamplesCap(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	path := filepath.Join(t.TempDir(), "x.db")
	attackInto(t, srv.URL, "-n", "25", "-c", "1", "--samples", "10", "-o", path)
	r := readDB(t, path).runs[0][0]
	if r.Samples != 10 || r.SamplesDropped != 15 {
		t.Errorf("samples %d, dropped %d; want 10 and 15", r.Samples, r.SamplesDropped)
	}
}

func TestAttackDBBadInput(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	text := writeIn(t, dir, "notes.db", "INVALID: plugin not loaded\n")
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing folder", []string{"-o", filepath.Join(dir, "no", "x.db")}, []string{"-o", "x.db"}},
		{"not a database", []string{"-o", text}, []string{"-o", text, "not a latlab results database"}},
		{"samples without a database", []string{"--samples", "5", "-o", filepath.Join(dir, "x.json")}, []string{"--samples", ".db"}},
		{"samples without output", []string{"--samples", "5"}, []string{"--samples"}},
		{"negative samples", []string{"--samples", "-1", "-o", filepath.Join(dir, "y.db")}, []string{"--samples", "-1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"attack", srv.URL, "-n", "1"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("server saw %d requests: bad input must not start an attack", n)
	}
	if data, err := os.ReadFile(text); err != nil || string(data) != "INVALID: plugin not loaded\n" {
		t.Errorf("%s changed: %q, %v", text, data, err)
	}
}

// TestAttackDBReadOnly stores into a folder and a file latlab may not
// write: exit 2 before a request is sent. Root may write anything, so as
// root the attack runs in a child process of user nobody.
func TestAttackDBReadOnly(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir, err := os.MkdirTemp("", "latlab-attack-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	existing := filepath.Join(dir, "old.db")
	attackInto(t, srv.URL, "-n", "1", "-c", "1", "-o", existing)
	before := len(srv.requests())
	if err := os.Chmod(existing, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	targets := existing + "," + filepath.Join(dir, "new.db")
	if os.Geteuid() != 0 {
		checkAttackReadOnly(t, srv.URL, targets)
	} else {
		// The test binary's folder is private; copy it where nobody may run it.
		bin := filepath.Join(dir+"-bin", "latlab.test")
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(bin)) })
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-test.run=^TestHelperAttackDBReadOnly$", "-test.v")
		cmd.Env = append(os.Environ(), "LATLAB_ATTACK_DB_RO="+srv.URL+" "+targets)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestHelperAttackDBReadOnly") {
			t.Errorf("attacks as user nobody: %v\n%s", err, out)
		}
	}
	if n := len(srv.requests()) - before; n != 0 {
		t.Errorf("server saw %d requests: a read-only -o must fail before the attack", n)
	}
	if got := readDB(t, existing); len(got.exps) != 1 {
		t.Errorf("%s holds %d experiments, want the 1 it had", existing, len(got.exps))
	}
}

// TestHelperAttackDBReadOnly is TestAttackDBReadOnly's child process.
func TestHelperAttackDBReadOnly(t *testing.T) {
	url, paths, ok := strings.Cut(os.Getenv("LATLAB_ATTACK_DB_RO"), " ")
	if !ok {
		t.Skip("runs as TestAttackDBReadOnly's child")
	}
	checkAttackReadOnly(t, url, paths)
}

// checkAttackReadOnly attacks url into each of the comma-separated paths,
// which latlab may not write.
func checkAttackReadOnly(t *testing.T, url, paths string) {
	for _, path := range strings.Split(paths, ",") {
		code, stdout, stderr := runCLI(t, "attack", url, "-n", "1", "-o", path)
		checkUsageError(t, code, stdout, stderr, "-o", path, "read-only")
	}
}

func TestAttackDBInterrupted(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	path := filepath.Join(t.TempDir(), "x.db")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := runAsync(ctx, "attack", srv.URL, "-r", "100", "-d", "30s", "-o", path)
	interruptOnceSeen(t, srv, 1, cancel)
	if r := await(t, done, drainLimit); r.code != exitInterrupted || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want %d and nothing", r.code, r.stderr, exitInterrupted)
	}
	runs := readDB(t, path).runs
	if len(runs) != 1 || len(runs[0]) != 1 {
		t.Fatalf("runs %v, want one", runs)
	}
	r := runs[0][0]
	if r.Status != store.Interrupted || r.Error == "" || r.Summary == nil || r.Summary.Requests < 1 ||
		r.Samples != r.Summary.Requests {
		t.Errorf("status %q, error %q, summary %v, samples %d; want interrupted with a reason and what was measured",
			r.Status, r.Error, r.Summary != nil, r.Samples)
	}
}
