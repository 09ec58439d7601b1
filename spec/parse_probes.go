package spec

import (
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// Defaults of the probes, when they are on.
const (
	DefaultMetricsInterval = 5 * time.Second
	DefaultPrometheusStep  = 5 * time.Second
	DefaultPprofAt         = 0.5
	DefaultPprofSeconds    = 5
)

// queryNameRE matches the names of Prometheus queries.
var queryNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// probes decodes the probes mapping. budget is validity.cpu_budget, or nil:
// process.cpu_budget is the same setting and must not differ.
func (d *decoder) probes(s *Spec, n *yaml.Node, budget *yaml.Node) {
	p := &s.Probes
	d.Fields(n, "probes", nil, func(key, f string, k, v *yaml.Node) bool {
		ok := true
		switch key {
		case "metrics":
			p.Metrics = d.metrics(v, f)
		case "prometheus":
			p.Prometheus = d.prometheus(v, f)
		case "process":
			p.Process = d.process(s, v, f, budget)
		case "pprof":
			p.Pprof, d.pprofAt = d.pprof(v, f), v
		case "traces":
			p.Traces, ok = d.boolean(v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "metrics", "prometheus", "process", "pprof", "traces"))
			ok = false
		}
		return ok
	})
}

// probe reads the fields of the probe n with yamlfile's Fields, null (as
// in "metrics:") being an empty mapping: the probe on with its defaults.
// It reports whether the probe is on: n is null or a mapping.
func (d *decoder) probe(n *yaml.Node, path string, required []string, f func(key, field string, k, v *yaml.Node) bool) bool {
	if yamlfile.Deref(n).ShortTag() == "!!null" {
		n = &yaml.Node{Kind: yaml.MappingNode, Line: n.Line}
	}
	d.Fields(n, path, required, f)
	return yamlfile.IsMapping(n)
}

// metrics decodes the metrics probe.
func (d *decoder) metrics(n *yaml.Node, path string) *Metrics {
	m := &Metrics{Interval: DefaultMetricsInterval, Window: DefaultMetricsWindow}
	var window *yaml.Node
	if !d.probe(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "interval":
			ok = keep(&m.Interval)(d.duration(v, f))
		case "window":
			if ok = keep(&m.Window)(d.duration(v, f)); ok {
				window = v
			}
		case "urls":
			m.URLs, ok = items(d, v, f, "URL", d.url)
		case "token_file": // read when the probe starts, so a variant's start may write it
			m.TokenFile, ok = d.specPath(v, f)
		case "cacert":
			m.CACert, ok = d.specPath(v, f)
		case "families":
			m.Families, ok = items(d, v, f, "metric family name", d.metricName)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "interval", "window", "urls", "token_file", "cacert", "families"))
		}
		return ok
	}) {
		return nil
	}
	if window != nil && m.Window < m.Interval {
		d.errorf(window, join(path, "window"), "%s is shorter than the interval, %s", m.Window, m.Interval)
	}
	return m
}

// specPath decodes the path n, resolved against the spec's folder and not
// read: the file may not exist before a trial starts.
func (d *decoder) specPath(n *yaml.Node, field string) (string, bool) {
	p, ok := d.text(n, field)
	return d.out.Path(p), ok
}

// metricName decodes a metric family's name: a name alone, since every
// label set of the family is read.
func (d *decoder) metricName(n *yaml.Node, field string) (string, bool) {
	name, ok := d.text(n, field)
	if ok && strings.ContainsAny(name, "{}= \t") {
		d.errorf(n, field, "%q is not a metric family's name: give the name alone (every label set of it is read)", name)
		return "", false
	}
	return name, ok
}

// items decodes the non-empty list n, called what in errors, with item,
// and reports whether every item was good.
func items[T any](d *decoder, n *yaml.Node, path, what string, item func(*yaml.Node, string) (T, bool)) ([]T, bool) {
	var out []T
	good := true
	if !d.List(n, path, what, func(i int, n *yaml.Node) {
		v, ok := item(n, index(path, i))
		if ok {
			out = append(out, v)
		}
		good = good && ok
	}) {
		return nil, false
	}
	return out, good
}

// prometheus decodes the prometheus probe: url and queries are required.
func (d *decoder) prometheus(n *yaml.Node, path string) *Prometheus {
	p := &Prometheus{Step: DefaultPrometheusStep}
	if !d.probe(n, path, []string{"url", "queries"}, func(key, f string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "url":
			p.URL, ok = d.url(v, f)
		case "step":
			ok = keep(&p.Step)(d.duration(v, f))
		case "queries":
			p.Queries, ok = d.queries(v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "url", "step", "queries"))
		}
		return ok
	}) {
		return nil
	}
	return p
}

// queries decodes the queries of the prometheus probe, a mapping of
// names to PromQL, and reports whether each was good.
func (d *decoder) queries(n *yaml.Node, path string) (map[string]string, bool) {
	q := map[string]string{}
	good := d.Fields(n, path, nil, func(name, f string, k, v *yaml.Node) bool {
		if !queryNameRE.MatchString(name) {
			d.errorf(k, f, "%q is not a query name: use letters, digits and '_', starting with a letter or '_'", name)
			return false
		}
		text, ok := d.text(v, f)
		if ok {
			q[name] = text
		}
		return ok
	})
	if good && len(q) == 0 {
		d.errorf(n, path, "expected at least one query, such as p99: 'histogram_quantile(0.99, ...)'")
		good = false
	}
	return q, good
}

// process decodes the process probe. Its cpu_budget and validity's,
// budget when given, must agree; either sets both.
func (d *decoder) process(s *Spec, n *yaml.Node, path string, budget *yaml.Node) *Process {
	p := &Process{CPUBudget: s.Validity.CPUBudget}
	if !d.probe(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "cpu_budget":
			var r float64
			r, ok = d.percent(v, f, true, 1)
			switch {
			case !ok:
			case budget != nil && r != s.Validity.CPUBudget:
				d.errorf(v, f, "%s differs from validity.cpu_budget, %s (line %d): give it once", pct(r), pct(s.Validity.CPUBudget), budget.Line)
				ok = false
			default:
				p.CPUBudget, s.Validity.CPUBudget = r, r
			}
		case "pids":
			p.PIDs, ok = items(d, v, f, "PID", func(n *yaml.Node, f string) (int, bool) {
				pid, ok := d.integer(n, f, 1, 1<<22)
				return int(pid), ok
			})
		case "names":
			p.Names, ok = items(d, v, f, "name", d.text)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "cpu_budget", "pids", "names"))
		}
		return ok
	}) {
		return nil
	}
	return p
}

// pprof decodes the pprof probe.
func (d *decoder) pprof(n *yaml.Node, path string) *Pprof {
	p := &Pprof{At: DefaultPprofAt, Seconds: DefaultPprofSeconds}
	if !d.probe(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "at":
			var r float64
			if r, ok = d.percent(v, f, true, 1); ok && r >= 1 {
				d.errorf(v, f, "%s leaves no time to profile: give less than 100%%", v.Value)
				ok = false
			} else if ok {
				p.At = r
			}
		case "seconds":
			var s int64
			if s, ok = d.integer(v, f, 1, 3600); ok {
				p.Seconds = int(s)
			}
		case "url":
			p.URL, ok = d.url(v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "at", "seconds", "url"))
		}
		return ok
	}) {
		return nil
	}
	return p
}
