package spec

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// TestSpecDesign checks what a report reads of a stored spec: leniently,
// a bad field costing only itself, and nothing of data that is no spec.
func TestSpecDesign(t *testing.T) {
	pct := func(name string, q float64, d time.Duration) Percentile {
		return Percentile{Name: name, Q: q, Latency: d}
	}
	open := func(rates ...float64) []record.Level {
		var out []record.Level
		for _, r := range rates {
			out = append(out, record.Level{Rate: r})
		}
		return out
	}
	plain := func(names ...string) []VariantDesign {
		var out []VariantDesign
		for _, n := range names {
			out = append(out, VariantDesign{Name: n})
		}
		return out
	}
	design := func(baseline string, vs ...VariantDesign) Design {
		return Design{Baseline: baseline, Variants: vs, Runs: 1, CPUBudget: 0.75, MetricsWindow: time.Minute}
	}
	for _, tc := range []struct {
		name, spec string
		want       Design
	}{
		{"expect sorted, named as reported",
			"version: 1\nvariants:\n  - name: a\n    expect: {p99.0: 5ms, p50: 1ms, p100: 2s, p75: 3ms}\n  - name: b\n",
			design("a", VariantDesign{Name: "a", Expect: []Percentile{pct("p50", 0.5, time.Millisecond),
				pct("p75", 0.75, 3*time.Millisecond), pct("p99", 0.99, 5*time.Millisecond), pct("max", 1, 2*time.Second)}},
				VariantDesign{Name: "b"})},
		{"bad expect entries left out", "variants:\n  - name: a\n    expect: {p50: soon, q9: 1ms, p0: 1ms, p101: 1ms, p90: -2ms, p99.9: 2us}\n",
			design("a", VariantDesign{Name: "a", Expect: []Percentile{pct("p99.9", 0.999, 2*time.Microsecond)}})},
		{"anchor", "e: &e {p50: 1ms}\nvariants:\n  - {name: a, expect: *e}\n",
			design("a", VariantDesign{Name: "a", Expect: []Percentile{pct("p50", 0.5, time.Millisecond)}})},
		// A bad expect: costs neither the variants nor their order.
		{"expect not a mapping", "variants:\n  - name: a\n    expect: [1, 2]\n  - name: b\n    expect: {p50: {x: 1}, p90: 1ms}\n",
			design("a", VariantDesign{Name: "a"},
				VariantDesign{Name: "b", Expect: []Percentile{pct("p90", 0.9, time.Millisecond)}})},
		{"baseline", "version: 1\nbaseline: b\nvariants: [{name: a}, {name: b}]\n", design("b", plain("a", "b")...)},
		{"a duplicate and a nameless variant left out", "variants: [{name: a}, {graph: g.yaml}, {name: a, expect: {p50: 1ms}}, {name: b}]\n",
			design("a", plain("a", "b")...)},
		// Levels as the plan runs them: the spec's load, each variant's
		// merged over it.
		{"levels", `variants:
  - {name: open, target: "http://127.0.0.1:1/"}
  - {name: closed, graph: missing.yaml, load: {mode: closed, concurrency: [2, 4]}}
  - {name: seq, load: {mode: sequential}}
  - {name: rates, load: {rates: [5], targets: missing.txt}}
  - {name: ramp, load: {mode: ramp, concurrency: [8], ramp: {burst: 2, every: 1s}}}
load: {mode: open, rates: [20, 10], duration: 1s, body_file: missing.bin}
runs: 4
`, Design{Baseline: "open", Runs: 4, CPUBudget: 0.75, MetricsWindow: time.Minute, Variants: []VariantDesign{
			{Name: "open", Levels: open(20, 10)},
			{Name: "closed", Levels: []record.Level{{Concurrency: 2}, {Concurrency: 4}}},
			{Name: "seq", Levels: []record.Level{{Concurrency: 1}}},
			{Name: "rates", Levels: open(5)},
			{Name: "ramp", Levels: []record.Level{{Concurrency: 8}}},
		}}},
		{"budget and window", "variants: [{name: a}]\nvalidity: {cpu_budget: 60%}\nprobes: {metrics: {window: 30s}}\n",
			Design{Baseline: "a", Variants: plain("a"), Runs: 1, CPUBudget: 0.6, MetricsWindow: 30 * time.Second}},
		// process.cpu_budget is the same setting as validity's.
		{"process budget", "variants: [{name: a}]\nprobes: {process: {cpu_budget: 0.5}}\n",
			Design{Baseline: "a", Variants: plain("a"), Runs: 1, CPUBudget: 0.5, MetricsWindow: time.Minute}},
		{"bad options keep their defaults", "variants: [{name: a}]\nruns: many\nvalidity: {cpu_budget: lots}\nprobes: {metrics: {window: -1s}}\norder: random\n",
			design("a", plain("a")...)},
		{"grouped", "variants: [{name: a}]\norder: grouped\n",
			Design{Baseline: "a", Variants: plain("a"), Runs: 1, Grouped: true, CPUBudget: 0.75, MetricsWindow: time.Minute}},
		{"interleaved", "variants: [{name: a}]\norder: interleaved\n", design("a", plain("a")...)},
		{"latlab pinned", "variants: [{name: a}]\ncpus: {load: '0,1', targets: 2-3}\n",
			Design{Baseline: "a", Variants: plain("a"), Runs: 1, CPUBudget: 0.75, MetricsWindow: time.Minute, LoadCPUs: "0-1"}},
		{"an attack's command line", "latlab attack http://127.0.0.1:8080/ -c 50", Design{}},
		{"empty", "", Design{}},
		{"not YAML", "variants: [", Design{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DesignOf(tc.spec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
