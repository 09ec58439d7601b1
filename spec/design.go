package spec

import (
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/yamlfile"
)

// levelKeys are the fields of a load that decide its levels.
var levelKeys = []string{"mode", "rates", "concurrency"}

// DesignOf returns what a report needs of text, a spec as an experiment
// stores it: its baseline, its variants in order with the levels Plan
// gives each and their expect: fields, its runs (and the min of runs:
// auto) and order, its CPU budget and the window of its metrics probe.
// It reads them as ParseSpec does, variants' loads merged with the
// spec's, but leniently, as SpecSLO reads the slo:
// the spec was checked when it ran, so the other fields are neither read
// nor checked, nor the files they name, a field that does not decode is
// left out, and an expect: entry on a percentile reports do not read is
// kept (specs once allowed them). Data that is no YAML mapping, such as
// the command line an attack stores, gives the zero Design.
func DesignOf(text string) Design {
	data := []byte(text)
	d := newDecoder("spec", data, "")
	root, err := yamlfile.Document("spec", data, "empty spec")
	if err != nil || yamlfile.Deref(root).Kind != yaml.MappingNode {
		return Design{}
	}
	s := &Spec{Runs: 1, Validity: DefaultValidity()}
	d.out = s
	nodes := map[string][2]*yaml.Node{}
	d.mapping(root, "", func(key string, k, v *yaml.Node) { nodes[key] = [2]*yaml.Node{k, v} })
	var base []entry
	if kv, ok := nodes["load"]; ok {
		base, _ = d.entries(kv[1], "load", scope{line: kv[0].Line, path: "load"})
	}
	var out Design
	if kv, ok := nodes["variants"]; ok {
		d.list(kv[1], "variants", "variant", func(i int, n *yaml.Node) {
			if v, ok := d.variantDesign(i, n, base); ok && !slices.ContainsFunc(out.Variants, func(o VariantDesign) bool { return o.Name == v.Name }) {
				out.Variants = append(out.Variants, v)
			}
		})
	}
	if kv, ok := nodes["baseline"]; ok {
		out.Baseline, _ = d.name(kv[1], "baseline")
	}
	if out.Baseline == "" && len(out.Variants) > 0 {
		out.Baseline = out.Variants[0].Name
	}
	opts := map[string][2]*yaml.Node{}
	if kv, ok := nodes["order"]; ok {
		o, _ := d.oneOf(kv[1], "order", string(Interleaved), string(Grouped))
		out.Grouped = Order(o) == Grouped
	}
	for _, key := range []string{"runs", "validity", "probes"} {
		if kv, ok := nodes[key]; ok {
			opts[key] = kv
		}
	}
	d.options(s, opts)
	if kv, ok := nodes["cpus"]; ok {
		var c CPUs
		d.cpus(&c, kv[1])
		out.LoadCPUs = c.Load
	}
	out.Runs, out.CPUBudget, out.MetricsWindow = s.Runs, s.Validity.CPUBudget, DefaultMetricsWindow
	if s.Auto != nil {
		out.AutoMin = s.Auto.Min
	}
	if m := s.Probes.Metrics; m != nil {
		out.MetricsWindow = m.Window
	}
	return out
}

// variantDesign decodes variant i from n: its name, its levels (its load
// merged with base, the spec's) and its expect: field.
func (d *decoder) variantDesign(i int, n *yaml.Node, base []entry) (VariantDesign, bool) {
	path := index("variants", i)
	var v VariantDesign
	var over []entry
	named := false
	d.mapping(n, path, func(key string, k, val *yaml.Node) {
		f := join(path, key)
		switch key {
		case "name":
			v.Name, named = d.name(val, f)
		case "load":
			over, _ = d.entries(val, f, scope{line: k.Line, path: f})
		case "expect":
			v.Expect = statNamed(d.percentilesOr(val, f, "percentile", nil))
		}
	})
	if !named {
		return v, false
	}
	var es []entry
	for _, e := range merge(base, over) {
		if slices.Contains(levelKeys, e.key) {
			es = append(es, e)
		}
	}
	for _, t := range d.buildLoad(es, scope{}, false).levels(v.Name) {
		v.Levels = append(v.Levels, record.Level{Rate: t.Rate, Concurrency: t.Concurrency})
	}
	return v, true
}

// statNamed returns ps with each percentile that is one of Stats
// under the Stat's name, so that p99.0 is p99 and p100 is max.
func statNamed(ps []Percentile) []Percentile {
	out := slices.Clone(ps)
	for i, p := range out {
		if j := slices.IndexFunc(Stats, func(st Stat) bool { return st.Q == p.Q }); j >= 0 {
			out[i].Name = Stats[j].Name
		}
	}
	return out
}

// A Design is what an experiment's spec planned, as a report needs it:
// the variants in the spec's order, each with the levels its plan runs and
// the latencies its expect: field expects, the repetitions, and the bounds
// the runs were measured and judged with. DesignOf reads it from a stored
// spec. The zero Design, that of a spec that does not
// decode (such as the command line an attack stores), plans nothing: a
// report then goes by what the runs show.
type Design struct {
	Baseline string          // the spec's baseline, else its first variant; "" for none
	Variants []VariantDesign // in the spec's order
	Runs     int             // repetitions of each variant × level; 0 when unknown; under runs: auto, the most
	// AutoMin is, under runs: auto, the repetitions every variant ×
	// level runs before any stops (see Stop); 0 for a number of runs.
	AutoMin int
	// Grouped is true when the plan ran each variant × level's
	// repetitions together (order: grouped) rather than one of every
	// pair per repetition: runs of one repetition were then far apart,
	// and overheads compare them unpaired (Options.Unpaired).
	Grouped bool
	// CPUBudget is the share of its allowed CPUs a target may use; 0 when
	// unknown (see Budget).
	CPUBudget float64
	// MetricsWindow is the window of the metrics probe; 0 when unknown
	// (see Window).
	MetricsWindow time.Duration
	// LoadCPUs is the spec's cpus: {load: ...}, the CPUs latlab ran on,
	// as a CPU list; "" when it was not pinned.
	LoadCPUs string
}

// A VariantDesign is one variant of a Design.
type VariantDesign struct {
	Name   string
	Levels []record.Level // its load's levels, in the spec's order
	Expect []Percentile   // its expect: field by increasing quantile, named as Stats names them
}

// Budget returns d.CPUBudget, or DefaultCPUBudget when it is unknown.
func (d Design) Budget() float64 {
	if d.CPUBudget > 0 {
		return d.CPUBudget
	}
	return DefaultCPUBudget
}

// Window returns d.MetricsWindow, or DefaultMetricsWindow when it is
// unknown.
func (d Design) Window() time.Duration {
	if d.MetricsWindow > 0 {
		return d.MetricsWindow
	}
	return DefaultMetricsWindow
}
