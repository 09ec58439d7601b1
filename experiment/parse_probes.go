package experiment

import (
	"regexp"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
)

// Defaults of the probes, when they are on.
const (
	DefaultMetricsInterval = 5 * time.Second
	DefaultMetricsWindow   = analysis.DefaultMetricsWindow
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
	d.mapping(n, "probes", func(key string, k, v *yaml.Node) {
		f := join("probes", key)
		switch key {
		case "metrics":
			p.Metrics = d.metrics(v, f)
		case "prometheus":
			p.Prometheus = d.prometheus(v, f)
		case "process":
			p.Process = d.process(s, v, f, budget)
		case "pprof":
			p.Pprof = d.pprof(v, f)
		case "traces":
			p.Traces, _ = d.boolean(v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "metrics", "prometheus", "process", "pprof", "traces"))
		}
	})
}

// optional returns n's mapping, treating null (as in "metrics:") as an
// empty one: the probe on with its defaults.
func optional(n *yaml.Node) *yaml.Node {
	if n = yamlfile.Deref(n); n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return &yaml.Node{Kind: yaml.MappingNode, Line: n.Line}
	}
	return n
}

// metrics decodes the metrics probe.
func (d *decoder) metrics(n *yaml.Node, path string) *Metrics {
	m := &Metrics{Interval: DefaultMetricsInterval, Window: DefaultMetricsWindow}
	var window *yaml.Node
	if !d.mapping(optional(n), path, func(key string, k, v *yaml.Node) {
		switch f := join(path, key); key {
		case "interval":
			if t, ok := d.duration(v, f); ok {
				m.Interval = t
			}
		case "window":
			if t, ok := d.duration(v, f); ok {
				m.Window, window = t, v
			}
		case "urls":
			m.URLs = d.urls(v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "interval", "window", "urls"))
		}
	}) {
		return nil
	}
	if window != nil && m.Window < m.Interval {
		d.errorf(window, join(path, "window"), "%s is shorter than the interval, %s", m.Window, m.Interval)
	}
	return m
}

// urls decodes a non-empty list of URLs.
func (d *decoder) urls(n *yaml.Node, path string) []string {
	var out []string
	d.list(n, path, "URL", func(i int, item *yaml.Node) {
		if u, ok := d.url(item, index(path, i)); ok {
			out = append(out, u)
		}
	})
	return out
}

// prometheus decodes the prometheus probe: url and queries are required.
func (d *decoder) prometheus(n *yaml.Node, path string) *Prometheus {
	p := &Prometheus{Step: DefaultPrometheusStep}
	var url, queries bool
	if !d.mapping(optional(n), path, func(key string, k, v *yaml.Node) {
		switch f := join(path, key); key {
		case "url":
			p.URL, _ = d.url(v, f)
			url = true
		case "step":
			if t, ok := d.duration(v, f); ok {
				p.Step = t
			}
		case "queries":
			queries = true
			p.Queries = map[string]string{}
			entries := 0
			d.mapping(v, f, func(name string, k, v *yaml.Node) {
				entries++
				qf := join(f, name)
				if !queryNameRE.MatchString(name) {
					d.errorf(k, qf, "%q is not a query name: use letters, digits and '_', starting with a letter or '_'", name)
					return
				}
				if q, ok := d.text(v, qf); ok {
					p.Queries[name] = q
				}
			})
			if yamlfile.Deref(v).Kind == yaml.MappingNode && entries == 0 {
				d.errorf(v, f, "expected at least one query, such as p99: 'histogram_quantile(0.99, ...)'")
			}
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "url", "step", "queries"))
		}
	}) {
		return nil
	}
	if !url {
		d.errorf(n, join(path, "url"), "missing")
	}
	if !queries {
		d.errorf(n, join(path, "queries"), "missing")
	}
	return p
}

// process decodes the process probe. Its cpu_budget and validity's,
// budget when given, must agree; either sets both.
func (d *decoder) process(s *Spec, n *yaml.Node, path string, budget *yaml.Node) *Process {
	p := &Process{CPUBudget: s.Validity.CPUBudget}
	if !d.mapping(optional(n), path, func(key string, k, v *yaml.Node) {
		switch f := join(path, key); key {
		case "cpu_budget":
			r, ok := d.percent(v, f, true, 1)
			switch {
			case !ok:
			case budget != nil && r != s.Validity.CPUBudget:
				d.errorf(v, f, "%s differs from validity.cpu_budget, %s (line %d): give it once", pct(r), pct(s.Validity.CPUBudget), budget.Line)
			default:
				p.CPUBudget, s.Validity.CPUBudget = r, r
			}
		case "pids":
			d.list(v, f, "PID", func(i int, item *yaml.Node) {
				if pid, ok := d.integer(item, index(f, i), 1, 1<<22); ok {
					p.PIDs = append(p.PIDs, int(pid))
				}
			})
		case "names":
			d.list(v, f, "name", func(i int, item *yaml.Node) {
				if name, ok := d.text(item, index(f, i)); ok {
					p.Names = append(p.Names, name)
				}
			})
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "cpu_budget", "pids", "names"))
		}
	}) {
		return nil
	}
	return p
}

// pprof decodes the pprof probe.
func (d *decoder) pprof(n *yaml.Node, path string) *Pprof {
	p := &Pprof{At: DefaultPprofAt, Seconds: DefaultPprofSeconds}
	if !d.mapping(optional(n), path, func(key string, k, v *yaml.Node) {
		switch f := join(path, key); key {
		case "at":
			if r, ok := d.percent(v, f, true, 1); ok && r >= 1 {
				d.errorf(v, f, "%s leaves no time to profile: give less than 100%%", v.Value)
			} else if ok {
				p.At = r
			}
		case "seconds":
			if n, ok := d.integer(v, f, 1, 3600); ok {
				p.Seconds = int(n)
			}
		case "url":
			p.URL, _ = d.url(v, f)
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "at", "seconds", "url"))
		}
	}) {
		return nil
	}
	return p
}
