package report

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// withoutExpectSpec is fixtureSpec without expect:.
const withoutExpectSpec = "version: 1\nname: filter-overhead\nbaseline: plain\nvariants:\n  - name: plain\n  - name: proxy\n  - name: filter\n"

// fixtureDesigns are the Designs of the fixtures' specs, as
// spec.DesignOf derives them (TestFixtureDesigns checks that it
// does): report reads what the spec planned from analysis.Experiment's
// Design, never from the spec.
var fixtureDesigns = func() map[string]spec.Design {
	variants := func(expect map[string][]spec.Percentile) []spec.VariantDesign {
		var out []spec.VariantDesign
		for _, v := range []string{"plain", "proxy", "filter"} {
			out = append(out, spec.VariantDesign{Name: v, Expect: expect[v]})
		}
		return out
	}
	µs := time.Microsecond
	return map[string]spec.Design{
		fixtureSpec: {Baseline: "plain", Runs: 1, CPUBudget: spec.DefaultCPUBudget, MetricsWindow: time.Minute,
			Variants: variants(map[string][]spec.Percentile{
				"proxy":  {{Name: "p50", Q: 0.5, Latency: 350 * µs}},
				"filter": {{Name: "p50", Q: 0.5, Latency: 290 * µs}, {Name: "p75", Q: 0.75, Latency: 300 * µs}, {Name: "p99", Q: 0.99, Latency: 500 * µs}},
			})},
		withoutExpectSpec: {Baseline: "plain", Runs: 1, CPUBudget: spec.DefaultCPUBudget, MetricsWindow: time.Minute, Variants: variants(nil)},
		richSpec:          {Baseline: "plain", Runs: 1, CPUBudget: 0.6, MetricsWindow: time.Minute, Variants: variants(nil)},
		perfSpec:          {Baseline: "plain", Runs: 1, CPUBudget: 0.6, MetricsWindow: time.Minute, Variants: variants(nil)},
		oneLevel.spec: {Baseline: "plain", Runs: 1, CPUBudget: spec.DefaultCPUBudget, MetricsWindow: time.Minute,
			Variants: variants(nil)[:2]},
		oneVariant.spec: {Baseline: "filter", Runs: 1, CPUBudget: spec.DefaultCPUBudget, MetricsWindow: 2 * time.Second,
			Variants: []spec.VariantDesign{{Name: "filter"}}},
	}
}()

// FixtureDesigns are fixtureDesigns, for TestFixtureDesigns.
var FixtureDesigns = fixtureDesigns

// loadDesigned reads experiment id from db as latlab report does: with
// the Design of its stored spec, here from fixtureDesigns.
func loadDesigned(ctx context.Context, db *store.DB, id int64) (*analysis.Experiment, error) {
	exp, err := analysis.Load(ctx, db, id)
	if err != nil {
		return nil, err
	}
	d, ok := fixtureDesigns[exp.Spec]
	if !ok && exp.Spec != "" {
		return nil, fmt.Errorf("no design for the spec %q: add it to fixtureDesigns", exp.Spec)
	}
	exp.Design = d
	return exp, nil
}
