package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// reasonRuns returns reps runs of variant at 100/s, every quantile base
// plus rep µs, the first flagged of them flagged generator_saturated.
func reasonRuns(variant string, base time.Duration, reps, flagged int, id *int64) []analysis.Run {
	var out []analysis.Run
	for rep := range reps {
		*id++
		r := analysis.Run{ID: *id, Trial: store.Trial{Variant: variant, Level: record.Level{Rate: 100}, Rep: rep}, Status: store.Done}
		for i, s := range spec.Stats {
			d := time.Duration(1+i)*base + time.Duration(rep)*time.Microsecond
			r.Latency = append(r.Latency, analysis.Value{Stat: s, Latency: d, OK: true})
		}
		if rep < flagged {
			r.Flags = []store.Flag{{Name: "generator_saturated", Reason: "behind"}}
		}
		out = append(out, r)
	}
	return out
}

// TestOverheadReasonEveryForm checks that where no test could decide, the
// text, HTML, JSON and CSV overhead tables all say why, never "no
// detectable difference".
func TestOverheadReasonEveryForm(t *testing.T) {
	var id int64
	for _, tc := range []struct {
		name   string
		runs   []analysis.Run
		reason string
		says   string
	}{
		{"three a side", append(reasonRuns("plain", 9*time.Millisecond, 3, 0, &id), reasonRuns("filter", 19*time.Millisecond, 3, 0, &id)...),
			"too_few_runs", "inconclusive with 3 against 3 runs: a 95% CI needs 4 a side, a test able to reject at 5% needs 4 a side"},
		{"baseline flagged", append(reasonRuns("plain", 9*time.Millisecond, 5, 5, &id), reasonRuns("filter", 19*time.Millisecond, 5, 0, &id)...),
			"all_runs_flagged", "n/a: all 5 runs of the baseline flagged or unfinished, left out (--include-flagged counts them)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewExperiment(&analysis.Experiment{Runs: tc.runs}, ExperimentOptions{Baseline: "plain"})
			if err != nil {
				t.Fatal(err)
			}
			forms := map[string]string{}
			var text, c bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			forms["text"] = text.String()
			var html []string
			for _, row := range r.overheadSection().Tables[0].Rows {
				html = append(html, row[5].Text)
			}
			forms["html"] = strings.Join(html, "\n")
			if err := r.WriteOverheadCSV(&c); err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(&c).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			reason := slices.Index(recs[0], "reason")
			for _, rec := range recs[1:] {
				if got := rec[reason]; got != tc.reason {
					t.Errorf("CSV %s: reason %q, want %q", rec[4], got, tc.reason)
				}
			}
			for _, o := range r.JSON().Overheads {
				if o.Reason == nil || *o.Reason != tc.reason || !strings.Contains(o.Verdict, tc.says) {
					t.Errorf("JSON %s: reason %v, verdict %q; want %s, %q", o.Percentile, o.Reason, o.Verdict, tc.reason, tc.says)
				}
			}
			for form, out := range forms {
				if strings.Contains(out, "no detectable") || strings.Count(out, tc.says) != len(spec.CompareStats) {
					t.Errorf("%s says %d times %q, want %d, and no 'no detectable':\n%s", form, strings.Count(out, tc.says), tc.says, len(spec.CompareStats), out)
				}
			}
		})
	}
}
