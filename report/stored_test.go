package report_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// storedSpec is a short real experiment: two external targets at two
// rates, three runs each, twelve trials of 200 ms in a seeded order.
const storedSpec = `version: 1
name: stored
variants:
  - {name: a, target: "%[1]s/a"}
  - {name: b, target: "%[1]s/b", load: {rates: [100, 200]}}
load: {mode: open, rates: [50], duration: 200ms}
runs: 3
seed: 11
`

// storedDB runs storedSpec once per test binary and returns its results
// database, the file's bytes; each test damages a copy.
var storedDB = sync.OnceValues(func() ([]byte, error) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Microsecond)
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "latlab-stored-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	specPath := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(specPath, []byte(fmt.Sprintf(storedSpec, srv.URL)), 0o644); err != nil {
		return nil, err
	}
	s, err := spec.ReadSpec(specPath)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "results.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	out, err := (&experiment.Runner{Spec: s, DB: db}).Run(context.Background())
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if out.Done != 9 {
		return nil, fmt.Errorf("the experiment did %d of its 9 trials: %+v", out.Done, out)
	}
	return os.ReadFile(path)
})

// damaged copies the stored experiment's database, runs the SQL in it
// and returns the copy's path and its runs as stored before.
func damaged(t *testing.T, stmts ...string) (string, []store.Run) {
	t.Helper()
	data, err := storedDB()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := db.Runs(ctx, 1)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	// As a user would with the sqlite3 shell: foreign keys off, so a
	// deleted run leaves its histograms behind.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, s := range stmts {
		if _, err := raw.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path, runs
}

// storedForms reports the experiment at path in text, JSON and HTML,
// flagged runs included.
func storedForms(t *testing.T, path string) (*report.Experiment, string, report.ExperimentJSON, string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exp, err := analysis.Load(ctx, db, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Flagged runs count: a busy machine flags some (generator_saturated),
	// and what is stored decides these counts, not the machine's load.
	r, err := report.NewExperiment(exp, report.ExperimentOptions{IncludeFlagged: true})
	if err != nil {
		t.Fatal(err)
	}
	var text, js, page bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var j report.ExperimentJSON
	if err := json.Unmarshal(js.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	d, err := report.LoadDetail(ctx, db, r, report.HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	return r, text.String(), j, html.UnescapeString(page.String())
}

// pick returns the stored run of variant at rate and rep.
func pick(t *testing.T, runs []store.Run, variant string, rate float64, rep int) store.Run {
	t.Helper()
	for _, r := range runs {
		if r.Variant == variant && r.Rate == rate && r.Rep == rep {
			return r
		}
	}
	t.Fatalf("no run %s %g/s rep %d", variant, rate, rep)
	return store.Run{}
}

// level returns the JSON level of variant at rate.
func level(t *testing.T, j report.ExperimentJSON, variant string, rate float64) report.LevelJSON {
	t.Helper()
	for _, l := range j.Levels {
		if l.Variant == variant && l.Rate == rate {
			return l
		}
	}
	t.Fatalf("no level %s %g/s in %+v", variant, rate, j.Levels)
	return report.LevelJSON{}
}

// inEvery checks that every form of the report carries want among its
// warnings.
func inEvery(t *testing.T, text string, j report.ExperimentJSON, page, want string) {
	t.Helper()
	if !strings.Contains(text, "\nwarning: "+want) {
		t.Errorf("the text report lacks the warning %q:\n%s", want, text)
	}
	if !strings.Contains(strings.Join(j.Warnings, "\n"), want) {
		t.Errorf("the JSON warnings lack %q: %q", want, j.Warnings)
	}
	if !strings.Contains(page, want) {
		t.Errorf("the HTML report lacks the warning %q", want)
	}
}

// summaryRow returns the text summary table's row of variant at level.
func summaryRow(t *testing.T, text, variant, level string) string {
	t.Helper()
	for line := range strings.Lines(text) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == variant && f[1] == level {
			return line
		}
	}
	t.Fatalf("no summary row %s %s in:\n%s", variant, level, text)
	return ""
}

// TestReportIntact checks the undamaged experiment: every planned run
// stored and counted, no warning of missing data.
func TestReportIntact(t *testing.T) {
	path, runs := damaged(t)
	r, text, j, _ := storedForms(t, path)
	if len(runs) != 9 || r.Runs.Planned != 9 || r.Runs.Missing != 0 || r.Runs.Unreadable != 0 {
		t.Fatalf("%d runs stored, counts %+v; want 9 planned and stored", len(runs), r.Runs)
	}
	for _, l := range j.Levels {
		if l.Runs != 3 || l.RunsPlanned != 3 || len(l.UnreadableRunIDs) != 0 {
			t.Errorf("%s %g/s: %d of %d runs counted, unreadable %v; want 3 of 3", l.Variant, l.Rate, l.Runs, l.RunsPlanned, l.UnreadableRunIDs)
		}
	}
	for _, w := range []string{"not stored", "unreadable", "cannot be read", "missing or inconsistent", "has not finished"} {
		if strings.Contains(text, w) {
			t.Errorf("the intact experiment's report says %q:\n%s", w, text)
		}
	}
}

// TestReportRunWithoutHistograms deletes the histograms of one done run:
// the report leaves it out, says the cell stands on 2 of 3 runs and names
// the run, instead of reading its percentiles as n/a from too few samples.
func TestReportRunWithoutHistograms(t *testing.T) {
	_, runs := damaged(t)
	victim := pick(t, runs, "b", 200, 2)
	path, _ := damaged(t, fmt.Sprintf("DELETE FROM histograms WHERE run_id = %d", victim.ID))
	r, text, j, page := storedForms(t, path)

	want := fmt.Sprintf("b 200/s: 1 run(s) left out, their stored data missing or inconsistent: run %d (rep 2, done): "+
		"no latency histogram, no service-time histogram", victim.ID)
	inEvery(t, text, j, page, want)
	if row := summaryRow(t, text, "b", "200/s"); !strings.Contains(row, " 2 of 3 ") || strings.Fields(row)[2] == "n/a" {
		t.Errorf("the row of b 200/s should stand on 2 of 3 runs, with a p50:\n%s", row)
	}
	// b 200/s counts 2 runs: a quantile n/a in "1 of 3" would be the run
	// without histograms read as too few samples. (Another level may
	// rightly have a run short of samples on a busy machine.)
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "b 200/s: latency") && strings.Contains(line, "of 3 run") {
			t.Errorf("the report reads the run without histograms as too few samples:\n%s", line)
		}
	}
	l := level(t, j, "b", 200)
	if l.Runs != 2 || l.RunsPlanned != 3 || len(l.UnreadableRunIDs) != 1 || l.UnreadableRunIDs[0] != victim.ID {
		t.Errorf("b 200/s in JSON: runs %d of %d, unreadable %v; want 2 of 3, run %d unreadable", l.Runs, l.RunsPlanned, l.UnreadableRunIDs, victim.ID)
	}
	if l.Latency["p50"].Median == nil || l.Latency["p50"].Runs != 2 {
		t.Errorf("b 200/s p50 in JSON: %+v, want a median over 2 runs", l.Latency["p50"])
	}
	if r.Runs.Unreadable != 1 || j.Experiment.RunsUnreadable != 1 || r.Runs.Total != 9 {
		t.Errorf("counts %+v, JSON runs_unreadable %d; want 9 stored, 1 unreadable", r.Runs, j.Experiment.RunsUnreadable)
	}
	if !strings.Contains(text, "1 unreadable (stored data missing or inconsistent; left out)") {
		t.Errorf("the Runs line does not count the unreadable run:\n%s", text)
	}
	if !strings.Contains(page, "<td class=\"num\">2 of 3</td>") {
		t.Error("the HTML summary does not say 2 of 3 runs")
	}
}

// TestReportRunRowDeleted deletes run rows: one in the middle of the plan
// is named as lost; the one the plan ends with reads as not run yet.
func TestReportRunRowDeleted(t *testing.T) {
	_, runs := damaged(t)
	last := runs[0]
	for _, r := range runs {
		if r.Position > last.Position {
			last = r
		}
	}
	victim := pick(t, runs, "a", 50, 2)
	if victim.ID == last.ID {
		victim = pick(t, runs, "a", 50, 1)
	}
	path, _ := damaged(t, fmt.Sprintf("DELETE FROM runs WHERE id = %d", victim.ID))
	r, text, j, page := storedForms(t, path)
	inEvery(t, text, j, page, fmt.Sprintf("a 50/s: 1 of 3 planned run(s) not stored: rep %d", victim.Rep))
	inEvery(t, text, j, page, "1 planned run(s) have no row in the database, though the experiment ran to its last trial: lost or deleted")
	if r.Runs.Planned != 9 || r.Runs.Missing != 1 || j.Experiment.RunsPlanned != 9 || j.Experiment.RunsMissing != 1 {
		t.Errorf("counts %+v, JSON %+v; want 9 planned, 1 missing", r.Runs, j.Experiment)
	}
	if !strings.Contains(text, "Runs        8 stored of 9 planned:") {
		t.Errorf("the Runs line does not say 8 stored of 9 planned:\n%s", text)
	}
	if row := summaryRow(t, text, "a", "50/s"); !strings.Contains(row, " 2 of 3 ") {
		t.Errorf("the row of a 50/s should stand on 2 of 3 runs:\n%s", row)
	}

	path, _ = damaged(t, fmt.Sprintf("DELETE FROM runs WHERE id = %d", last.ID))
	_, text, j, page = storedForms(t, path)
	inEvery(t, text, j, page, "the experiment has not finished: 1 of 9 planned runs have not run yet")
	if strings.Contains(text, "lost or deleted") {
		t.Errorf("a plan stopped before its last trial reads as lost rows:\n%s", text)
	}

	// Both: one row lost before the last stored, one trial not run yet.
	path, _ = damaged(t, fmt.Sprintf("DELETE FROM runs WHERE id IN (%d, %d)", last.ID, victim.ID))
	_, text, j, page = storedForms(t, path)
	inEvery(t, text, j, page, "2 planned run(s) have no row in the database, 1 of them before the last run stored: "+
		"those are lost or deleted; the others have not run yet")
	reps := map[string][]int{} // by cell, in the order of the plan's reps
	for _, run := range []store.Run{victim, last} {
		cell := fmt.Sprintf("%s %g/s", run.Variant, run.Rate)
		reps[cell] = append(reps[cell], run.Rep)
	}
	for cell, rs := range reps {
		slices.Sort(rs)
		want := fmt.Sprintf("%s: 1 of 3 planned run(s) not stored: rep %d", cell, rs[0])
		if len(rs) == 2 {
			want = fmt.Sprintf("%s: 2 of 3 planned run(s) not stored: reps %d, %d", cell, rs[0], rs[1])
		}
		inEvery(t, text, j, page, want)
	}
}

// TestReportNoHistograms deletes every histogram: the report says so
// first, and names every run, instead of a table of silent n/a.
func TestReportNoHistograms(t *testing.T) {
	path, runs := damaged(t, "DELETE FROM histograms")
	r, text, j, page := storedForms(t, path)
	inEvery(t, text, j, page, "no run can be read: the stored histograms of all 9 run(s) with a result are missing "+
		"or disagree with their request counts, so every percentile is n/a")
	if len(j.Warnings) == 0 || !strings.HasPrefix(j.Warnings[0], "no run can be read") {
		t.Errorf("the first warning should be that no run can be read: %q", j.Warnings)
	}
	for _, run := range runs {
		if !strings.Contains(text, fmt.Sprintf("run %d (rep %d, done): no latency histogram", run.ID, run.Rep)) {
			t.Errorf("the report does not name run %d (%s)", run.ID, run.Trial)
		}
	}
	for _, l := range j.Levels {
		if l.Runs != 0 || l.RunsPlanned != 3 || len(l.UnreadableRunIDs) != 3 {
			t.Errorf("%s %g/s: %d of %d runs, unreadable %v; want 0 of 3, all 3 unreadable", l.Variant, l.Rate, l.Runs, l.RunsPlanned, l.UnreadableRunIDs)
		}
	}
	if r.Runs.Unreadable != 9 {
		t.Errorf("counts %+v, want 9 unreadable", r.Runs)
	}
}

// TestReportCountsDisagree makes a run's stored request count disagree
// with its histograms: the run is named and left out.
func TestReportCountsDisagree(t *testing.T) {
	_, runs := damaged(t)
	victim := pick(t, runs, "a", 50, 3)
	n := victim.Summary.Requests
	path, _ := damaged(t, fmt.Sprintf(`UPDATE runs SET summary = json_set(summary, '$.requests', %d) WHERE id = %d`, n+5, victim.ID))
	_, text, j, page := storedForms(t, path)
	inEvery(t, text, j, page, fmt.Sprintf("a 50/s: 1 run(s) left out, their stored data missing or inconsistent: run %d (rep 3, done): "+
		"latency histogram holds %d requests, the run %d, service-time histogram holds %d requests, the run %d", victim.ID, n, n+5, n, n+5))
	if l := level(t, j, "a", 50); l.Runs != 2 || l.RunsPlanned != 3 {
		t.Errorf("a 50/s: %d of %d runs, want 2 of 3", l.Runs, l.RunsPlanned)
	}
}

// TestReportDoneWithoutResult clears the result of a done run: it is
// named as such, not counted as a run that failed before measuring.
func TestReportDoneWithoutResult(t *testing.T) {
	_, runs := damaged(t)
	victim := pick(t, runs, "b", 100, 1)
	path, _ := damaged(t, fmt.Sprintf("UPDATE runs SET summary = NULL WHERE id = %d", victim.ID))
	r, text, j, page := storedForms(t, path)
	inEvery(t, text, j, page, fmt.Sprintf("run %d (b 100/s rep 1) is marked done but has no result stored: left out", victim.ID))
	if strings.Contains(text, "failed before measuring anything") {
		t.Errorf("the done run without a result reads as failed:\n%s", text)
	}
	if r.Runs.Done != 9 || r.Runs.Failed != 0 || r.Runs.NoResult != 0 || r.Runs.Unreadable != 1 {
		t.Errorf("counts %+v; want 9 done, 1 unreadable, none failed", r.Runs)
	}
	if l := level(t, j, "b", 100); l.Runs != 2 || l.RunsPlanned != 3 {
		t.Errorf("b 100/s: %d of %d runs, want 2 of 3", l.Runs, l.RunsPlanned)
	}
}

// TestReportEveryRowDeleted deletes every run row: the report, with no
// result to show, still says what the plan held.
func TestReportEveryRowDeleted(t *testing.T) {
	path, _ := damaged(t, "DELETE FROM runs")
	_, text, j, page := storedForms(t, path)
	inEvery(t, text, j, page, "the experiment has not finished: 9 of 9 planned runs have not run yet")
	if !strings.Contains(text, "Runs        0 stored of 9 planned:") {
		t.Errorf("the Runs line does not say 0 stored of 9 planned:\n%s", text)
	}
}

// TestReportPendingSideFile leaves a side file beside the database, as a
// run whose commit failed does: the report warns first, naming it, that
// it counts none of what the file holds.
func TestReportPendingSideFile(t *testing.T) {
	path, _ := damaged(t)
	side := path + store.PendingInfix + "1-4.db"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(side, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, _, _, _ := storedForms(t, path)
	if err := r.WarnPending(path); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], filepath.Base(side)) || !strings.Contains(r.Warnings[0], "1 measured run(s)") {
		t.Fatalf("warnings %q: want the side file %s named first", r.Warnings, filepath.Base(side))
	}
	if err := os.Remove(side); err != nil {
		t.Fatal(err)
	}
	r, _, _, _ = storedForms(t, path)
	if err := r.WarnPending(path); err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "side file") {
			t.Errorf("no side file, yet the warning %q", w)
		}
	}
}
