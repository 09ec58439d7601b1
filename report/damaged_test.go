package report_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// TestReportDamagedRow damages one row of a copied results database at a
// time — a JSON column, a histogram's blob, a value of the wrong type —
// and reports it: the report is written, the damaged run is left out with
// a warning in every form naming the table, the run and what is wrong, and
// the other runs of its level still count.
func TestReportDamagedRow(t *testing.T) {
	_, runs := damaged(t)
	victim := pick(t, runs, "b", 200, 2)
	id := victim.ID
	tests := []struct {
		name string
		sql  string
		want []string // in the warnings of every form
	}{
		{"summary", fmt.Sprintf(`UPDATE runs SET summary = '{"requests": oops' WHERE id = %d`, id),
			[]string{fmt.Sprintf("b 200/s: 1 run(s) left out, their stored data missing or inconsistent: run %d (rep 2, done): table runs: summary: invalid character", id)}},
		{"flags", fmt.Sprintf(`UPDATE runs SET flags = '[{' WHERE id = %d`, id),
			[]string{fmt.Sprintf("b 200/s: 1 run(s) left out, their stored data missing or inconsistent: run %d (rep 2, done): table runs: flags: unexpected end of JSON input", id)}},
		{"histogram", fmt.Sprintf(`UPDATE histograms SET hdr = x'deadbeef' WHERE run_id = %d AND phase = 'measure' AND kind = 'latency'`, id),
			[]string{fmt.Sprintf("b 200/s: 1 run(s) left out, their stored data missing or inconsistent: run %d (rep 2, done): table histograms, run %d, measure latency: hdr: not an HdrHistogram", id, id)}},
		{"wrong type", fmt.Sprintf(`UPDATE runs SET samples = 'many' WHERE id = %d`, id),
			[]string{fmt.Sprintf(`b 200/s: 1 run(s) left out, their stored data missing or inconsistent: run %d (rep 2, done): table runs: sql: Scan error on column index 13, name "samples"`, id)}},
		// Without its trial, the run cannot be placed: it is named alone.
		{"trial of the wrong type", fmt.Sprintf(`UPDATE runs SET concurrency = 'many' WHERE id = %d`, id),
			[]string{fmt.Sprintf(`table runs, run %d (b): sql: Scan error on column index 4, name "concurrency"`, id)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := damaged(t, tt.sql)
			r, text, j, page := storedForms(t, path)
			for _, w := range tt.want {
				inEvery(t, text, j, page, w)
			}
			if len(r.Damaged) != 1 || r.Damaged[0].RunID != id {
				t.Errorf("Damaged = %v, want the one row of run %d", r.Damaged, id)
			}
			if row := summaryRow(t, text, "b", "200/s"); !strings.Contains(row, " 2 of 3 ") {
				t.Errorf("the row of b 200/s should stand on the 2 undamaged runs of 3:\n%s", row)
			}
			if row := summaryRow(t, text, "a", "50/s"); !strings.Contains(row, " 3 ") {
				t.Errorf("the row of a 50/s should stand on its 3 runs:\n%s", row)
			}
		})
	}
}

// TestReportDamagedProbe: a probe point whose labels are not JSON is left
// out of the probe summary with a warning naming it; the rest is read.
func TestReportDamagedProbe(t *testing.T) {
	_, runs := damaged(t)
	id := pick(t, runs, "a", 50, 1).ID
	path, _ := damaged(t,
		fmt.Sprintf(`INSERT INTO probes VALUES (%d, 'process', 'cpu_allowed_percent', '{}', 0, 10), (%d, 'process', 'cpu_allowed_percent', '{"pid": ', 1000000000, 20)`, id, id))
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
	r, err := report.NewExperiment(exp, report.ExperimentOptions{IncludeFlagged: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.LoadProbes(ctx, db); err != nil {
		t.Fatalf("LoadProbes: %v, want the damaged point left out", err)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("warning: table probes, run %d, process cpu_allowed_percent at 1s: labels: unexpected end of JSON input: left out", id)
	if !strings.Contains(text.String(), want) {
		t.Errorf("the text report lacks %q:\n%s", want, text.String())
	}
	if len(r.Probes) == 0 {
		t.Error("no probe summary: the undamaged point is left out too")
	}
}
