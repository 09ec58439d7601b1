package report

import (
	"testing"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// TestRunCountsLeftOut checks that a run flagged too_few_samples only is
// counted as flagged but not as left out, that other flags leave a run
// out, and that --include-flagged leaves none out.
func TestRunCountsLeftOut(t *testing.T) {
	run := func(id int64, status store.Status, flags ...string) analysis.Run {
		r := analysis.Run{ID: id, Trial: store.Trial{Variant: "a", Level: record.Level{Rate: 10}, Rep: int(id)}, Status: status}
		for _, f := range flags {
			r.Flags = append(r.Flags, store.Flag{Name: f, Reason: "why"})
		}
		return r
	}
	exp := &analysis.Experiment{Runs: []analysis.Run{
		run(1, store.Done),
		run(2, store.Done, "too_few_samples"),
		run(3, store.Done, "trend", "too_few_samples"),
		run(4, store.Interrupted, "interrupted"),
	}}
	for _, tc := range []struct {
		include bool
		want    RunCounts
	}{
		{false, RunCounts{Total: 4, Done: 3, Flagged: 3, LeftOut: 1, Failed: 1, Planned: 4}},
		{true, RunCounts{Total: 4, Done: 3, Flagged: 3, LeftOut: 0, Failed: 1, Planned: 4}},
	} {
		r, err := NewExperiment(exp, ExperimentOptions{IncludeFlagged: tc.include})
		if err != nil {
			t.Fatal(err)
		}
		if r.Runs != tc.want {
			t.Errorf("include flagged %v: counts %+v, want %+v", tc.include, r.Runs, tc.want)
		}
	}
}
