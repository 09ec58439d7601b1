package report

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"
)

// TestOverheadMethodEveryForm checks that each form of the overhead
// table says how a row compared its runs: ten repetitions pair, unless
// the plan was grouped.
func TestOverheadMethodEveryForm(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grouped bool
		flagged int // of the baseline's runs
		marker  string
		method  string
		pairs   int
	}{
		{"interleaved", false, 0, "10 pairs", "paired", 10},
		{"a flagged run drops its pair", false, 1, "9 pairs", "paired", 9},
		{"grouped", true, 0, "unpaired", "unpaired", 0},
		{"nothing to compare", false, 10, "-", "unpaired", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var id int64
			runs := append(reasonRuns("plain", 9*time.Millisecond, 10, tc.flagged, &id), reasonRuns("filter", 19*time.Millisecond, 10, 0, &id)...)
			exp := &analysis.Experiment{Runs: runs, Design: spec.Design{Grouped: tc.grouped}}
			r, err := NewExperiment(exp, ExperimentOptions{Baseline: "plain"})
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if got := regexp.MustCompile(`(?m)^filter +100/s +p50 +\S+ +`+regexp.QuoteMeta(tc.marker)+`  `).FindAllString(text.String(), -1); len(got) != 1 {
				t.Errorf("text: the p50 row marked %q %d times; want once:\n%s", tc.marker, len(got), text.String())
			}
			for _, row := range r.overheadSection().Tables[0].Rows {
				if row[4].Text != tc.marker {
					t.Errorf("HTML %s: compared %q; want %q", row[2].Text, row[4].Text, tc.marker)
				}
			}
			for _, o := range r.JSON().Overheads {
				if o.Method != tc.method || o.Pairs != tc.pairs {
					t.Errorf("JSON %s: method %q pairs %d; want %q, %d", o.Percentile, o.Method, o.Pairs, tc.method, tc.pairs)
				}
			}
		})
	}
}
