package spec

import (
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/units"
	"github.com/latlab/latlab/yamlfile"
)

// percentilesOr decodes a mapping of percentiles to latencies, such as
// {p50: 30ms, p99: 50ms}, sorted by quantile. Other keys are left to
// other, which reports whether it took them; nil takes none. what names a
// value in errors.
func (d *decoder) percentilesOr(n *yaml.Node, path, what string, other func(key string, k, v *yaml.Node) bool) []Percentile {
	var out []Percentile
	lines := map[float64]int{}
	entries := 0
	d.Fields(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		entries++
		if other != nil && other(key, k, v) {
			return true
		}
		q, ok := ParseQuantile(key)
		switch _, dup := lines[q]; {
		case !ok:
			d.errorf(k, f, "unknown field: expected a percentile such as p50, p99 or p99.9")
		case q <= 0 || q > 1:
			d.errorf(k, f, "%s is not a percentile above p0 and at most p100", key)
		case dup:
			d.errorf(k, f, "the same percentile as line %d", lines[q])
		default:
			lines[q] = k.Line
			lat, ok := d.duration(v, f)
			if ok {
				out = append(out, Percentile{Name: key, Q: q, Latency: lat})
			}
			return ok
		}
		return false
	})
	if yamlfile.IsMapping(n) && entries == 0 {
		d.errorf(n, path, "expected at least one %s, such as p99: 50ms", what)
	}
	slices.SortFunc(out, func(a, b Percentile) int {
		switch {
		case a.Q < b.Q:
			return -1
		case a.Q > b.Q:
			return 1
		}
		return 0
	})
	return out
}

// slo decodes the slo mapping: percentiles and errors. Its percentiles
// are those latlab reports and judges (Stats): a limit on any
// other could never be met.
func (d *decoder) slo(s *SLO, n *yaml.Node) {
	unjudged := d.unreported("slo", "latlab reports and judges")
	s.Latency = d.percentilesOr(n, "slo", "bound", func(key string, k, v *yaml.Node) bool {
		if key != "errors" {
			return unjudged(key, k, v)
		}
		if r, ok := d.percent(v, "slo.errors", false, 1); ok {
			s.Errors = &r
		}
		return true
	})
}

// unreported returns a percentilesOr hook that rejects, under path, a
// percentile the reports do not read from every run.
func (d *decoder) unreported(path, does string) func(key string, k, v *yaml.Node) bool {
	return func(key string, k, _ *yaml.Node) bool {
		if q, ok := ParseQuantile(key); ok {
			if q > 0 && q <= 1 && !judged(q) {
				d.errorf(k, join(path, key), "%s p50, p90, p95, p99, p99.9 and p100 (the maximum) only", does)
				return true
			}
		}
		return false
	}
}

// judged reports whether quantile q is one of Stats, which an
// SLO can limit.
func judged(q float64) bool {
	return slices.ContainsFunc(Stats, func(s Stat) bool { return s.Q == q })
}

// SpecSLO reads only the slo field of data, a spec as an experiment
// stores it, called name in errors: the other fields are neither checked
// nor read, nor the files they name, so a spec that ran elsewhere still
// gives its SLO. Data without one — no slo field, or no YAML mapping at
// all, such as the command line an attack stores — gives the zero SLO. A
// bad slo field is an error naming name, the line and the field, as
// ParseSpec's are.
func SpecSLO(name string, data []byte) (SLO, error) {
	d := newDecoder(name, data, "")
	var s SLO
	root, err := yamlfile.Document(name, data, "empty spec")
	if err != nil || yamlfile.Deref(root).Kind != yaml.MappingNode {
		return s, nil
	}
	root = yamlfile.Deref(root)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := yamlfile.Deref(root.Content[i]); k.Kind == yaml.ScalarNode && k.Value == "slo" {
			d.slo(&s, root.Content[i+1])
			break
		}
	}
	return s, d.Err()
}

// warmup decodes the warmup mapping: duration (required) and rate: same, a
// share of the trial's rate, or requests per second.
func (d *decoder) warmup(s *Spec, n *yaml.Node) *Warmup {
	w := &Warmup{Share: 1}
	d.Fields(n, "warmup", []string{"duration"}, func(key, f string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "duration":
			w.Duration, ok = d.duration(v, f)
		case "rate":
			ok = d.warmupRate(s, w, v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "duration", "rate"))
		}
		return ok
	})
	if !yamlfile.IsMapping(n) {
		return nil
	}
	return w
}

// warmupRate decodes the rate of a warm-up into w, and reports whether
// it was good.
func (d *decoder) warmupRate(s *Spec, w *Warmup, v *yaml.Node, f string) bool {
	v = yamlfile.Deref(v)
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value == "same" {
		return true
	}
	if _, isPct, ok := ratio(v); ok && isPct {
		share, ok := d.percent(v, f, true, 10)
		if !ok {
			return false
		}
		w.Share = share
		for _, va := range s.Variants {
			if va.Load.Mode != Sequential {
				continue
			}
			ok = false
			if slices.Contains(va.Overrides, "mode") {
				d.errorf(v, f, "variant %s runs in sequential mode, which has no rate to take a share of: give same or requests per second", va.Name)
			} else {
				d.errorf(v, f, "sequential mode has no rate to take a share of: give same or requests per second")
			}
		}
		return ok
	}
	if _, err := units.ParseRate(v.Value); v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && err != nil {
		d.errorf(v, f, "expected same, a percentage such as 50%%, or a rate such as 500 or 500/s, got %s", got(v))
		return false
	}
	r, ok := d.positiveRate(v, f)
	if ok {
		w.Share, w.Rate = 0, r
	}
	return ok
}

// sideload decodes one sideload: target and rate, both required.
func (d *decoder) sideload(n *yaml.Node, path string) (Sideload, bool) {
	var sl Sideload
	ok := d.Fields(n, path, []string{"target", "rate"}, func(key, f string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "target":
			sl.Target, ok = d.url(v, f)
		case "rate":
			sl.Rate, ok = d.positiveRate(v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "target", "rate"))
		}
		return ok
	})
	return sl, ok
}

// validity decodes the validity mapping into v and returns the node of its
// cpu_budget, or nil.
func (d *decoder) validity(v *Validity, n *yaml.Node) *yaml.Node {
	var budget *yaml.Node
	d.Fields(n, "validity", nil, func(key, f string, k, val *yaml.Node) bool {
		ok := false
		switch key {
		case "max_error_ratio":
			ok = keep(&v.MaxErrorRatio)(d.percent(val, f, false, 1))
		case "max_lag_p99":
			ok = keep(&v.MaxLagP99)(d.duration(val, f))
		case "min_achieved":
			ok = keep(&v.MinAchieved)(d.percent(val, f, true, 1))
		case "cpu_budget":
			if ok = keep(&v.CPUBudget)(d.percent(val, f, true, 1)); ok {
				budget = val
			}
		case "max_trend":
			ok = keep(&v.MaxTrend)(d.percent(val, f, true, 100))
		case "samples_for":
			ok = keep(&v.SamplesFor)(d.samplesFor(val, f))
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "max_error_ratio", "max_lag_p99", "min_achieved", "cpu_budget", "max_trend", "samples_for"))
		}
		return ok
	})
	return budget
}

// samplesFor decodes validity.samples_for, a percentile below p100 such as
// p90, as its quantile; p99, the default, is 0 (see Validity.SamplesFor).
func (d *decoder) samplesFor(n *yaml.Node, field string) (float64, bool) {
	s, ok := d.text(n, field)
	if !ok {
		return 0, false
	}
	q, _ := ParseQuantile(s)
	if q <= 0 || q >= 1 {
		d.errorf(n, field, "%q: expected a percentile above p0 and below p100, such as p90 or p99", s)
		return 0, false
	}
	if q == defaultSamplesFor {
		q = 0
	}
	return q, true
}

// cpus decodes the cpus field: load and targets, each a CPU list.
func (d *decoder) cpus(c *CPUs, n *yaml.Node) {
	d.Fields(n, "cpus", nil, func(key, f string, k, val *yaml.Node) bool {
		var dst *string
		switch key {
		case "load":
			dst, c.LoadLine = &c.Load, val.Line
		case "targets":
			dst, c.TargetsLine = &c.Targets, val.Line
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "load", "targets"))
			return false
		}
		s, ok := d.text(val, f)
		if !ok {
			return false
		}
		list, err := load.ParseCPUList(s)
		if err != nil {
			d.errorf(val, f, "%v; expected a CPU list such as 0 or 2-3", err)
			return false
		}
		*dst = load.FormatCPUList(slices.Sorted(slices.Values(list)))
		return true
	})
}
