package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// autoExperiment is an experiment under runs: auto (min 6, max 10) whose
// proxy stopped at 100/s after 6 runs, precise, and at 200/s after 9, its
// budget spent; skip leaves out a run of the proxy at 200/s, stops says
// whether the experiment stored why its cells stopped.
func autoExperiment(skip int, stops bool) *analysis.Experiment {
	exp := &analysis.Experiment{Design: spec.Design{Baseline: "base", Runs: 10, AutoMin: 6, Variants: []spec.VariantDesign{
		{Name: "base", Levels: []analysis.Level{{Rate: 100}, {Rate: 200}}},
		{Name: "proxy", Levels: []analysis.Level{{Rate: 100}, {Rate: 200}}},
	}}}
	id := int64(0)
	for _, rate := range []float64{100, 200} {
		reps := 6
		if rate == 200 {
			reps = 9
		}
		for rep := 1; rep <= reps; rep++ {
			for _, v := range []string{"base", "proxy"} {
				if v == "proxy" && rate == 200 && rep == skip {
					continue
				}
				id++
				exp.Runs = append(exp.Runs, analysis.Run{ID: id, Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate}, Rep: rep},
					Position: int(id), Status: store.Done})
			}
		}
	}
	if stops {
		w := analysis.Width{Stat: "p50", CI: true, Width: 3e-6, Goal: 10e-6, OK: true}
		exp.Provenance.Extra = map[string]string{analysis.StopsKey: analysis.EncodeStops([]analysis.Stop{
			{Variant: "proxy", Rate: 100, Runs: 6, Reason: analysis.StopPrecise, Widths: []analysis.Width{w}},
			{Variant: "proxy", Rate: 200, Runs: 9, Reason: analysis.StopBudget, Widths: []analysis.Width{{Stat: "p50", CI: true, Width: 20e-6, Goal: 10e-6}}},
		})}
	}
	return exp
}

// TestReportAutoRuns: a report of an experiment under runs: auto plans
// each cell the repetitions it ran, says why each stopped, and warns only
// of what is missing below that, or that it has not finished.
func TestReportAutoRuns(t *testing.T) {
	for _, tc := range []struct {
		name      string
		exp       *analysis.Experiment
		missing   int
		want, not []string
	}{
		{"finished", autoExperiment(0, true), 0,
			[]string{"Repetitions: runs: auto repeated", "  proxy 100/s: precise after 6 runs (p50 width 3.0µs ≤ 10.0µs)",
				"  proxy 200/s: budget spent after 9 runs, not precise (p50 width 20.0µs > 10.0µs)", "30 stored:"},
			[]string{"not stored", "has not finished", "planned"}},
		{"a run lost", autoExperiment(4, true), 1,
			[]string{"warning: proxy 200/s: 1 of 9 run(s) not stored: rep 4: lost or deleted"}, []string{"has not finished"}},
		{"not finished", autoExperiment(0, false), 0,
			[]string{"warning: runs: auto has not finished"}, []string{"Repetitions:", "not stored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewExperiment(tc.exp, ExperimentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Runs.Planned != 30 || r.Runs.Missing != tc.missing {
				t.Errorf("planned %d, missing %d; want 30 and %d", r.Runs.Planned, r.Runs.Missing, tc.missing)
			}
			for _, l := range r.Levels {
				if want := map[float64]int{100: 6, 200: 9}[l.Rate]; l.Planned != want {
					t.Errorf("%s %s plans %d runs; want %d", l.Variant, l.Level, l.Planned, want)
				}
			}
			var b bytes.Buffer
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			checkText(t, b.String(), tc.want, tc.not)
			if got := len(r.JSON().Stops); got != len(r.Stops) {
				t.Errorf("JSON has %d stops; want %d", got, len(r.Stops))
			}
		})
	}
}

// TestReportFewRunsHint: an overhead too few runs leave inconclusive,
// in a table where others can conclude, gets the advice to raise runs:,
// which goes on with the experiment.
func TestReportFewRunsHint(t *testing.T) {
	exp := &analysis.Experiment{Design: spec.Design{Baseline: "base", Runs: 6}}
	id := int64(0)
	for _, rate := range []float64{100, 200} {
		reps := 6
		if rate == 100 {
			reps = 3
		}
		for rep := 1; rep <= reps; rep++ {
			for i, v := range []string{"base", "proxy"} {
				id++
				run := analysis.Run{ID: id, Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate}, Rep: rep}, Status: store.Done}
				for _, st := range spec.Stats {
					d := time.Duration(100+10*i+rep) * time.Microsecond
					run.Latency = append(run.Latency, analysis.Value{Stat: st, Latency: d, OK: true, Count: 1e6})
				}
				exp.Runs = append(exp.Runs, run)
			}
		}
	}
	r, err := NewExperiment(exp, ExperimentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(r.Warnings, "\n")
	checkText(t, w, []string{"4 overhead row(s) inconclusive with too few runs: raise runs: in the spec and run the same latlab run again"},
		[]string{"no overhead can come out significant"})
}
