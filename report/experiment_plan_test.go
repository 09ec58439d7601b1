package report_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// TestPlanOfExamples checks that the report reads the plan of every
// example spec as latlab run plans it: the same runs per variant and level.
func TestPlanOfExamples(t *testing.T) {
	paths, err := filepath.Glob("../examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../examples/experiments/*.yaml")
	paths = append(paths, more...)
	// A spec whose variants override the load, each in its own way.
	dir := t.TempDir()
	over := filepath.Join(dir, "over.yaml")
	if err := os.WriteFile(over, []byte(`version: 1
name: over
variants:
  - {name: open, target: "http://127.0.0.1:1/"}
  - {name: closed, target: "http://127.0.0.1:1/", load: {mode: closed, concurrency: [2, 4, 8]}}
  - {name: seq, target: "http://127.0.0.1:1/", load: {mode: sequential}}
  - {name: rates, target: "http://127.0.0.1:1/", load: {rates: [5]}}
load: {mode: open, rates: [10, 20], duration: 1s}
runs: 4
`), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, over)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			sp, err := spec.ReadSpec(path)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// runs: auto plans its first min repetitions; the rest wait on
			// the runs, so a report with nothing stored plans those.
			plan := sp.Plan(1)
			if sp.Auto != nil {
				plan = slices.DeleteFunc(plan, func(tr spec.Trial) bool { return tr.Rep > sp.Auto.Min })
			}
			want := map[string]int{} // runs per cell
			for _, tr := range plan {
				want[fmt.Sprintf("%s %s", tr.Variant, analysis.Level{Rate: tr.Rate, Concurrency: tr.Concurrency})]++
			}
			// Nothing stored: the plan comes from the spec alone.
			design := spec.DesignOf(string(raw))
			bare, err := report.NewExperiment(&analysis.Experiment{Experiment: store.Experiment{ID: 1, Name: sp.Name, Spec: string(raw)},
				Design: design}, report.ExperimentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if bare.Runs.Planned != len(plan) {
				t.Errorf("the report reads %d planned runs from the spec; latlab run plans %d", bare.Runs.Planned, len(plan))
			}
			// Every trial of the plan stored but the first of each cell:
			// the report plans them all from the spec and finds those
			// missing, cell by cell.
			exp := &analysis.Experiment{Experiment: store.Experiment{ID: 1, Name: sp.Name, Spec: string(raw)}, Design: design}
			seen := map[string]bool{}
			for _, tr := range plan {
				cell := fmt.Sprintf("%s %s", tr.Variant, analysis.Level{Rate: tr.Rate, Concurrency: tr.Concurrency})
				if !seen[cell] {
					seen[cell] = true
					continue
				}
				exp.Unmeasured = append(exp.Unmeasured, analysis.Run{ID: int64(tr.Position), Position: tr.Position, Status: store.Failed,
					Trial: store.Trial{Variant: tr.Variant, Level: tr.Level, Rep: tr.Rep}})
			}
			r, err := report.NewExperiment(exp, report.ExperimentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Runs.Planned != len(plan) || r.Runs.Missing != len(want) {
				t.Errorf("the report plans %d runs and finds %d missing; latlab run plans %d in %d cells",
					r.Runs.Planned, r.Runs.Missing, len(plan), len(want))
			}
			got := map[string]int{}
			for _, w := range r.Warnings {
				cell, _, ok := strings.Cut(w, ": 1 of ")
				if ok && strings.HasSuffix(w, fmt.Sprintf(" %d planned run(s) not stored: rep 1", sp.Runs)) {
					got[cell] = sp.Runs
				}
			}
			// With one run each, nothing stored: not run yet; under runs:
			// auto the report says it has not finished instead.
			if sp.Runs > 1 && sp.Auto == nil && !maps.Equal(got, want) {
				t.Errorf("cells missing rep 1 per the report: %v; latlab run plans %v\n%q", got, want, r.Warnings)
			}
		})
	}
}
