package spec

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/units"
	"github.com/latlab/latlab/yamlfile"
)

// AutoRuns is runs: auto: each variant at each level runs Min times, then
// one repetition at a time, every cell still open together, until each
// of its overheads against the baseline at Quantiles has a 95% interval
// no wider than Precision of the baseline's value there (or than Width),
// or than Relative of the overhead's own size, until Max repetitions, or
// until Budget is spent. It stops on the width of the intervals, never on
// their verdict: an experiment that stopped once a difference looked
// significant would find more than there is. Relative is no verdict
// either: at ½ it asks an interval to lie further from zero than any
// test does (see analysis.Precision).
type AutoRuns struct {
	Min int `spec:"min"`
	Max int `spec:"max"`
	// Precision is the widest an overhead's interval may be, as a share
	// of the baseline's value of its quantile at its level; 0 when Width
	// gives it.
	Precision float64 `spec:"precision,percent"`
	// Width is the widest an overhead's interval may be, as a duration;
	// 0 when Precision gives it.
	Width time.Duration `spec:"precision"`
	// Relative, when above 0, is the widest an overhead's interval may
	// also be as a share of the overhead's size: either goal met will do.
	Relative float64 `spec:"relative,percent"`
	// Quantiles are the overheads that must be precise, of those the
	// overhead table compares (CompareStats).
	Quantiles []string `spec:"quantiles"`
	// Budget, when above 0, is the time the experiment's trials may take
	// in all: no repetition starts that would pass it.
	Budget time.Duration `spec:"budget"`
}

// The defaults of runs: auto.
const (
	DefaultAutoMin       = 6
	DefaultAutoMax       = 100
	DefaultAutoPrecision = 0.10
	DefaultAutoRelative  = 0.5
)

// DefaultAutoQuantiles are the overheads runs: auto makes precise by
// default: the median's, the hop's typical cost. A p99's run-to-run
// spread on a shared machine is many times a p50's: judged by default,
// it would keep nearly every study running to max (quantiles: [p50,
// p99] asks for it). Every overhead is reported with its interval all
// the same.
var DefaultAutoQuantiles = []string{"p50"}

// autoKeys are the fields of runs: as a mapping.
var autoKeys = []string{"min", "max", "precision", "relative", "quantiles", "budget"}

// maxRuns bounds runs: and runs.max.
const maxRuns = 100000

// runs decodes the runs field: a whole number, auto, or a mapping of
// autoKeys, into s.Runs and s.Auto.
func (d *decoder) runs(s *Spec, n *yaml.Node) {
	n = yamlfile.Deref(n)
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		if n.Value != "auto" {
			d.errorf(n, "runs", "expected a whole number, auto, or {min, max, precision, quantiles, budget}, got %s", got(n))
			return
		}
		s.Auto = &AutoRuns{Min: DefaultAutoMin, Max: DefaultAutoMax, Precision: DefaultAutoPrecision, Relative: DefaultAutoRelative,
			Quantiles: slices.Clone(DefaultAutoQuantiles)}
	case n.Kind == yaml.MappingNode:
		s.Auto = d.autoRuns(n)
	default:
		if v, ok := d.integer(n, "runs", 1, maxRuns); ok {
			s.Runs = int(v)
		}
		return
	}
	if s.Auto != nil {
		s.Runs = s.Auto.Max
	}
}

// autoRuns decodes runs: as a mapping; nil when a field is bad. A bound
// left out defaults, but not past the other bound given: {max: 4} runs
// 4 at least and at most.
func (d *decoder) autoRuns(n *yaml.Node) *AutoRuns {
	a := &AutoRuns{Precision: DefaultAutoPrecision, Relative: DefaultAutoRelative, Quantiles: slices.Clone(DefaultAutoQuantiles)}
	var minNode *yaml.Node
	good := d.Fields(n, "runs", nil, func(key, f string, k, v *yaml.Node) bool {
		switch key {
		case "min":
			minNode = v
			return keep(&a.Min)(d.count(v, f))
		case "max":
			return keep(&a.Max)(d.count(v, f))
		case "precision":
			return d.precision(a, v, f)
		case "relative":
			return d.relative(a, v, f)
		case "quantiles":
			return d.autoQuantiles(a, v, f)
		case "budget":
			return keep(&a.Budget)(d.duration(v, f))
		}
		d.errorf(k, f, "%s", yamlfile.UnknownField(key, autoKeys...))
		return false
	})
	switch {
	case a.Min == 0 && a.Max == 0:
		a.Min, a.Max = DefaultAutoMin, DefaultAutoMax
	case a.Min == 0:
		a.Min = min(DefaultAutoMin, a.Max)
	case a.Max == 0:
		a.Max = max(DefaultAutoMax, a.Min)
	case a.Min > a.Max:
		d.errorf(minNode, "runs.min", "min %d is more than max %d", a.Min, a.Max)
		good = false
	}
	if !good {
		return nil
	}
	return a
}

// count decodes a number of runs.
func (d *decoder) count(n *yaml.Node, field string) (int, bool) {
	v, ok := d.integer(n, field, 1, maxRuns)
	return int(v), ok
}

// precision decodes runs.precision: a share of the baseline, such as
// 10%, or a duration, such as 20us.
func (d *decoder) precision(a *AutoRuns, n *yaml.Node, f string) bool {
	if _, _, ok := ratio(yamlfile.Deref(n)); ok {
		return keep(&a.Precision)(d.percent(n, f, true, 10))
	}
	if nn := yamlfile.Deref(n); nn.Kind != yaml.ScalarNode || nn.ShortTag() != "!!str" || !isDuration(nn.Value) {
		d.errorf(n, f, "expected a share of the baseline such as 10%% or a duration such as 20us, got %s", got(nn))
		return false
	}
	w, ok := d.duration(n, f)
	if ok {
		a.Precision, a.Width = 0, w
	}
	return ok
}

// relative decodes runs.relative: a share of the overhead, such as 50%,
// or off (0%) for the width against the baseline alone.
func (d *decoder) relative(a *AutoRuns, n *yaml.Node, f string) bool {
	nn := yamlfile.Deref(n)
	if nn.Kind == yaml.ScalarNode && (nn.Value == "off" || nn.Value == "0" || nn.Value == "0%") {
		a.Relative = 0
		return true
	}
	if _, _, ok := ratio(nn); !ok {
		d.errorf(n, f, "expected a share of the overhead such as 50%%, or off, got %s", got(nn))
		return false
	}
	return keep(&a.Relative)(d.percent(n, f, true, 2))
}

// autoQuantiles decodes runs.quantiles: percentiles the overhead table
// compares, each once.
func (d *decoder) autoQuantiles(a *AutoRuns, n *yaml.Node, f string) bool {
	var qs []string
	good := true
	d.list(n, f, "percentile", func(i int, item *yaml.Node) {
		name, ok := d.text(item, index(f, i))
		switch {
		case !ok:
			good = false
		case !slices.Contains(CompareStats, name):
			d.errorf(item, index(f, i), "%q: expected one of the overhead table's percentiles, %v", name, CompareStats)
			good = false
		case slices.Contains(qs, name):
			d.errorf(item, index(f, i), "%s is given twice", name)
			good = false
		default:
			qs = append(qs, name)
		}
	})
	if good && len(qs) > 0 {
		a.Quantiles = qs
	}
	return good && len(qs) > 0
}

// isDuration reports whether s reads as a duration, such as 20us.
func isDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil
}

// GoalText says how narrow a's intervals must be: "10% of the
// baseline's value", "20µs", "10% of the baseline's value and 50% of
// the overhead".
func (a *AutoRuns) GoalText() string {
	s := pct(a.Precision) + " of the baseline's value"
	if a.Precision == 0 {
		s = units.Duration(a.Width)
	}
	if a.Relative > 0 {
		s += " and " + pct(a.Relative) + " of the overhead"
	}
	return s
}

// BudgetText says a's budget, "" without one.
func (a *AutoRuns) BudgetText() string {
	if a.Budget <= 0 {
		return ""
	}
	return ", or until its trials have taken " + a.Budget.String()
}

// String says a as runs: auto's parts: "auto (min 6, max 30, precision
// 10% or 50% of the overhead at p50)".
func (a *AutoRuns) String() string {
	prec := pct(a.Precision)
	if a.Precision == 0 {
		prec = units.Duration(a.Width)
	}
	if a.Relative > 0 {
		prec += " or " + pct(a.Relative) + " of the overhead"
	}
	s := fmt.Sprintf("auto (min %d, max %d, precision %s at %s", a.Min, a.Max, prec, strings.Join(a.Quantiles, " and "))
	if a.Budget > 0 {
		s += ", budget " + a.Budget.String()
	}
	return s + ")"
}
