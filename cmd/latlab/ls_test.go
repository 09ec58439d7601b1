package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/store"
)

// lsDB attacks a test server twice into a new database and returns its
// path: experiment 1, closed loop, 200 requests, enough for a p99;
// experiment 2, open loop at 500/s, 10 requests, too few for one.
func lsDB(t *testing.T) string {
	t.Helper()
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	path := filepath.Join(t.TempDir(), "results.db")
	attackInto(t, srv.URL, "-n", "200", "-c", "2", "-o", path)
	attackInto(t, srv.URL, "-n", "10", "-r", "500", "-c", "4", "-o", path)
	return path
}

func TestLs(t *testing.T) {
	path := lsDB(t)
	code, stdout, stderr := runCLI(t, "ls", path)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	host, _ := os.Hostname()
	dur := `\d[\d.]*(ns|µs|ms|s)`
	for _, want := range []string{
		`experiment 1  attack  created \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  spec [0-9a-f]{12}  1/1 runs done  host ` +
			regexp.QuoteMeta(host) + `  latlab \S+.*`,
		`experiment 2  attack  .*1/1 runs done.*`,
		`position +variant +rate +concurrency +rep +status +requests +p50 +p99 +flags`,
		`1 +attack +closed +2 +1 +done +200 +` + dur + ` +` + dur + ` +-`,
		`1 +attack +500/s +4 +1 +done +10 +` + dur + ` +- +-`,
	} {
		re := regexp.MustCompile(`(?m)^ *` + want + ` *$`)
		if !re.MatchString(stdout) {
			t.Errorf("no line matching %q in:\n%s", want, stdout)
		}
	}

	// One experiment only.
	code, stdout, _ = runCLI(t, "ls", path, "--experiment", "2")
	if code != exitOK || strings.Contains(stdout, "experiment 1") || !strings.Contains(stdout, "experiment 2") {
		t.Errorf("--experiment 2: exit %d, stdout:\n%s\nwant 0 and experiment 2 alone", code, stdout)
	}
}

func TestLsJSON(t *testing.T) {
	path := lsDB(t)
	code, stdout, stderr := runCLI(t, "ls", path, "--format", "json", "--experiment", "1")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	var got struct {
		File        string
		Experiments []struct {
			ID         int64
			Name       string
			RunsDone   int    `json:"runs_done"`
			RunsStored int    `json:"runs_stored"`
			SpecHash   string `json:"spec_hash"`
			Provenance struct {
				Host string
			}
			Runs []struct {
				Variant     string
				Rate        float64
				Concurrency int
				Rep         int
				Status      string
				Requests    int64
				Samples     int64
				P50         *float64 `json:"p50_seconds"`
				P99         *float64 `json:"p99_seconds"`
				Flags       []any
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("decoding %s: %v", stdout, err)
	}
	if got.File != path || len(got.Experiments) != 1 || len(got.Experiments[0].Runs) != 1 {
		t.Fatalf("file %q, experiments %+v; want %s and experiment 1 of one run", got.File, got.Experiments, path)
	}
	e, r := got.Experiments[0], got.Experiments[0].Runs[0]
	if e.ID != 1 || e.Name != "attack" || e.RunsDone != 1 || e.RunsStored != 1 || len(e.SpecHash) != 64 || e.Provenance.Host == "" {
		t.Errorf("experiment %+v: want 1, attack, 1 run done, a spec hash and a host", e)
	}
	type run struct {
		Variant     string
		Rate        float64
		Concurrency int
		Rep         int
		Status      string
		Requests    int64
		Samples     int64
		Flags       int
	}
	want := run{"attack", 0, 2, 1, "done", 200, 200, 0}
	if diff := cmp.Diff(want, run{r.Variant, r.Rate, r.Concurrency, r.Rep, r.Status, r.Requests, r.Samples, len(r.Flags)}); diff != "" {
		t.Errorf("run (-want +got):\n%s", diff)
	}
	if r.Flags == nil || r.P50 == nil || r.P99 == nil || *r.P50 <= 0 || *r.P99 < *r.P50 {
		t.Errorf("flags %v, p50 %v, p99 %v; want [] and 0 < p50 <= p99", r.Flags, r.P50, r.P99)
	}
}

func TestLsEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, stdout, stderr := runCLI(t, "ls", path)
	if want := path + " holds no experiments\n"; code != exitOK || stderr != "" || stdout != want {
		t.Errorf("exit %d, stderr %q, stdout %q; want 0, nothing and %q", code, stderr, stdout, want)
	}
	code, stdout, _ = runCLI(t, "ls", path, "--format", "json")
	if want := `"experiments": []`; code != exitOK || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stdout %q; want 0 and %s", code, stdout, want)
	}
}

func TestLsBadInput(t *testing.T) {
	dir := t.TempDir()
	text := writeIn(t, dir, "notes.txt", "experiment timed out around the 9th run\n")
	empty := writeIn(t, dir, "empty.db", "")
	missing := filepath.Join(dir, "missing.db")
	db := lsDB(t)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"text file", []string{text}, []string{text, "not a latlab results database"}},
		{"empty file", []string{empty}, []string{empty}},
		{"missing file", []string{missing}, []string{missing}},
		{"folder", []string{dir}, []string{dir}},
		{"no file", nil, []string{"one results database", "got 0"}},
		{"two files", []string{db, db}, []string{"got 2"}},
		{"bad format", []string{db, "--format", "yaml"}, []string{"--format", "yaml"}},
		{"unknown experiment", []string{db, "--experiment", "9"}, []string{"--experiment 9", db}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"ls"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("ls created %s", missing)
	}
}
