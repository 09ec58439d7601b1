package report_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// TestLevelsEndToEnd runs a spec whose rates are one apart in the seventh
// digit, and two whose constant schedule is no whole number of
// nanoseconds apart, and follows each level from the plan through the
// store to every form of the report: four levels all the way, each with
// the target rate the spec gave.
func TestLevelsEndToEnd(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	specPath := filepath.Join(dir, "spec.yaml")
	text := fmt.Sprintf(`version: 1
name: levels
variants:
  - {name: a, target: "%s/"}
load: {mode: open, rates: [1234568, 3, 1234567, 7], requests: 3}
runs: 1
seed: 5
`, srv.URL)
	if err := os.WriteFile(specPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.ReadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	want := []record.Level{{Rate: 3}, {Rate: 7}, {Rate: 1234567}, {Rate: 1234568}}
	var planned []record.Level
	for _, tr := range sp.Plan(5) {
		planned = append(planned, tr.Level)
	}
	slices.SortFunc(planned, record.Level.Compare)
	if !slices.Equal(planned, want) {
		t.Fatalf("plan levels %v; want %v", planned, want)
	}

	path := filepath.Join(dir, "results.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&experiment.Runner{Spec: sp, DB: db}).Run(context.Background())
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil || out.Done != len(want) {
		t.Fatalf("run: %+v, %v; want %d trials done", out, err, len(want))
	}

	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var stored []string
	rows, err := raw.Query(`SELECT level FROM runs ORDER BY rate`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if w := []string{"3/s", "7/s", "1.234567e+06/s", "1.234568e+06/s"}; !slices.Equal(stored, w) {
		t.Errorf("stored levels %q; want %q", stored, w)
	}

	r, text, j, page := storedForms(t, path)
	var reported []record.Level
	for _, l := range r.Levels {
		reported = append(reported, l.Level)
	}
	if !slices.Equal(reported, want) {
		t.Errorf("report levels %v; want %v", reported, want)
	}
	for _, l := range want {
		lj := level(t, j, "a", l.Rate)
		if lj.Runs != 1 {
			t.Errorf("JSON level %s: %d runs; want 1", l, lj.Runs)
		}
		summaryRow(t, text, "a", l.String())
		if !strings.Contains(page, ">"+l.String()+"<") {
			t.Errorf("the HTML report has no cell %s", l)
		}
	}
	ro, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	runs, err := ro.Runs(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if run.Summary == nil || run.Summary.TargetRate != run.Rate {
			t.Errorf("run %s: summary %+v; want the target rate %v, the spec's", run.Trial, run.Summary, run.Rate)
		}
	}
}

// TestReportFormat1 reports a file in format 1, from before runs had a
// level column, as it reports the same runs in the current format.
func TestReportFormat1(t *testing.T) {
	now, _ := damaged(t)
	old, _ := damaged(t, `DROP TABLE shards`, `DROP INDEX runs_by_level`, `ALTER TABLE runs DROP COLUMN level`,
		`UPDATE meta SET value = '1' WHERE key = 'format_version'`)
	_, text, j, page := storedForms(t, now)
	_, oldText, oldJ, oldPage := storedForms(t, old)
	if oldText != text {
		t.Errorf("format 1 text report:\n%s\nwant:\n%s", oldText, text)
	}
	if !reflect.DeepEqual(oldJ, j) {
		t.Errorf("format 1 JSON report:\n%+v\nwant:\n%+v", oldJ, j)
	}
	if oldPage != page {
		t.Error("format 1 HTML report differs")
	}
}

// TestResumeFormat1 resumes the experiment of a file in format 1: opened
// for writing it is upgraded, and the runs it holds are the plan's done
// trials, so there is nothing left to run.
func TestResumeFormat1(t *testing.T) {
	path, runs := damaged(t, `DROP TABLE shards`, `DROP INDEX runs_by_level`, `ALTER TABLE runs DROP COLUMN level`,
		`UPDATE meta SET value = '1' WHERE key = 'format_version'`)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatalf("upgrading format 1: %v", err)
	}
	defer db.Close()
	exp, err := db.Experiment(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(specPath, []byte(exp.Spec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.ReadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&experiment.Runner{Spec: s, DB: db}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Resumed || out.Skipped != len(runs) || out.Done != 0 || out.Experiment.ID != 1 {
		t.Errorf("outcome %+v; want experiment 1 resumed, its %d runs skipped", out, len(runs))
	}
}
