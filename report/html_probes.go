package report

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
	"github.com/latlab/latlab/store"
)

// maxProbeSeries caps the lines of one probe chart; the rest are named in
// its note.
const maxProbeSeries = 12

// probeSection draws the side measurements of each representative run:
// one chart per metric family (a filter's p90, p99 and p100 together),
// target CPU with its budget, memory.
func (r *Experiment) probeSection(d *Detail, reps []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "probes", Title: "Probes at " + d.Level.String(),
		Intro: []string{"Side measurements taken during the runs drawn over time, against the time since each run's first probe sample."}}
	type line struct {
		name  string
		color int
		pts   []plot.Point
	}
	charts := map[string][]*line{}
	index := map[string]*line{}
	for _, run := range reps {
		if len(run.Probes) == 0 {
			continue
		}
		vi := slices.Index(r.variants, run.Variant)
		t0 := slices.MinFunc(run.Probes, func(a, b store.ProbePoint) int { return a.Time.Compare(b.Time) }).Time
		for _, p := range run.Probes {
			if p.Probe == "traces" || p.Series == "up" {
				continue
			}
			family, stat, _ := strings.Cut(p.Series, ":")
			name := strings.TrimSpace(strings.Join([]string{run.Variant, labelText(p.Labels), stat}, " "))
			key := family + "\x00" + name
			l := index[key]
			if l == nil {
				l = &line{name: name, color: vi}
				index[key] = l
				charts[family] = append(charts[family], l)
			}
			l.pts = append(l.pts, plot.Point{X: p.Time.Sub(t0).Seconds(), Y: p.Value})
		}
	}
	if len(charts) == 0 {
		return s, false
	}
	budget := specCPUBudget(r.Exp.Spec)
	for _, family := range slices.Sorted(maps.Keys(charts)) {
		lines := charts[family]
		c := &plot.Chart{ID: "probe-" + family, Title: family,
			X: plot.Axis{Label: "time", Unit: plot.Seconds}, Y: probeAxis(family)}
		variants := map[int]bool{}
		for _, l := range lines {
			variants[l.color] = true
		}
		for i, l := range lines {
			if i == maxProbeSeries {
				c.Note = fmt.Sprintf("%d more series not drawn", len(lines)-maxProbeSeries)
				break
			}
			slices.SortStableFunc(l.pts, func(a, b plot.Point) int { return cmp.Compare(a.X, b.X) })
			// One variant: a colour per line. Several: a colour per
			// variant, and its quantiles told apart by stroke.
			ser := plot.Series{Name: l.name, Points: l.pts, Color: -1}
			if len(variants) > 1 {
				ser.Color = l.color
				switch {
				case strings.HasSuffix(l.name, "p100"):
					ser.Dashed = true
				case !strings.HasSuffix(l.name, "p99"):
					ser.Width = 0.8
				}
			}
			c.Series = append(c.Series, ser)
		}
		if family == "cpu_allowed_percent" {
			c.Rules = []plot.Rule{{Y: 100 * budget, Label: fmt.Sprintf("budget %.4g%%", 100*budget)}}
		}
		s.Plots = append(s.Plots, svg(c))
	}
	return s, true
}

// probeAxis reads a series' unit from its name, as Prometheus names them.
func probeAxis(family string) plot.Axis {
	switch {
	case strings.HasSuffix(family, "_seconds"):
		return plot.Axis{Label: family, Unit: plot.Seconds, ZeroBased: true}
	case strings.HasSuffix(family, "_bytes"):
		return plot.Axis{Label: family, Unit: plot.Bytes, ZeroBased: true}
	case strings.HasSuffix(family, "_percent"):
		return plot.Axis{Label: family + " (%)", Unit: plot.Plain, ZeroBased: true}
	case strings.HasSuffix(family, "_ratio"):
		return plot.Axis{Label: family, Unit: plot.Ratio, ZeroBased: true}
	}
	return plot.Axis{Label: family, Unit: plot.Plain, ZeroBased: true}
}

// labelText names a series' labels compactly: a process by its command,
// the rest as k=v in name order.
func labelText(labels map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if (k == "pid" || k == "role") && labels["comm"] != "" {
			continue
		}
		if k == "comm" {
			parts = append(parts, labels[k])
			continue
		}
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, " ")
}

// hopSection tabulates what each hop of a traced graph adds, per variant,
// from the traces of every run at the detail level.
func (r *Experiment) hopSection(d *Detail, _ []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "hops", Title: "Per-hop breakdown at " + d.Level.String(),
		Intro: []string{"From the traces of every run at this level: network is a caller's client span less the callee's server span " +
			"(the network, any proxy between them, the client's HTTP stack); framework is a server span less its work and downstream calls " +
			"(filters, routing, the framework)."}}
	t := htmlTable{Head: []string{"variant", "caller", "callee", "kind", "samples", "p50", "p90", "p99"}}
	bars := &plot.Bars{ID: "hops", Title: "What each hop adds at " + d.Level.String(),
		Value: plot.Axis{Label: "time", Unit: plot.Seconds, ZeroBased: true},
		Note:  "bar: p50 over every run's traced requests; whisker: p50 to p99"}
	row := map[string]int{}
	for vi, v := range r.variants {
		var points []store.ProbePoint
		for _, run := range d.Runs {
			if run.Variant == v && levelOf(run.Run) == d.Level {
				points = append(points, run.Probes...)
			}
		}
		hops := analysis.Hops(points)
		if len(hops) == 0 {
			continue
		}
		ser := plot.BarSeries{Name: v, Color: vi}
		for _, h := range hops {
			cat := fmt.Sprintf("%s → %s, %s", cmp.Or(h.Caller, "load"), h.Callee, h.Kind)
			i, ok := row[cat]
			if !ok {
				i = len(bars.Categories)
				row[cat] = i
				bars.Categories = append(bars.Categories, cat)
			}
			for len(ser.Values) <= i {
				ser.Values, ser.Lo, ser.Hi = append(ser.Values, math.NaN()), append(ser.Lo, math.NaN()), append(ser.Hi, math.NaN())
			}
			ser.Values[i], ser.Lo[i], ser.Hi[i] = h.P50, h.P50, h.P99
		}
		bars.Series = append(bars.Series, ser)
		for _, h := range hops {
			t.Rows = append(t.Rows, []htmlCell{{Text: v}, {Text: cmp.Or(h.Caller, "(load generator)")}, {Text: h.Callee}, {Text: h.Kind},
				{Text: fmt.Sprint(h.Count), Class: "num"}, {Text: naSeconds(h.P50), Class: "num"},
				{Text: naSeconds(h.P90), Class: "num"}, {Text: naSeconds(h.P99), Class: "num"}})
		}
	}
	if len(t.Rows) == 0 {
		return s, false
	}
	s.Plots = append(s.Plots, template.HTML(bars.SVG())) //nolint:gosec // escaped by package plot
	s.Tables = append(s.Tables, t)
	return s, true
}

// profileSection lists the costliest functions of the profiles taken
// during each representative run.
func (r *Experiment) profileSection(d *Detail, reps []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "profiles", Title: "Profiles at " + d.Level.String()}
	for _, run := range reps {
		for _, p := range run.Profiles {
			if len(p.Top) == 0 {
				continue
			}
			what := p.Kind
			if p.Duration > 0 {
				what += " over " + p.Duration.String()
			}
			title := fmt.Sprintf("%s, run %d: %s, %s", run.Variant, run.ID, p.Target, what)
			label, unit, scale := p.Unit, plot.Plain, 1.0
			switch p.Unit {
			case "nanoseconds":
				label, unit, scale = "CPU time", plot.Seconds, 1e-9
			case "bytes":
				label, unit = "memory", plot.Bytes
			}
			bars := &plot.Bars{ID: fmt.Sprintf("profile-%d-%d", run.ID, len(s.Plots)), Title: "Top functions: " + title,
				Value:  plot.Axis{Label: label, Unit: unit, ZeroBased: true},
				Series: []plot.BarSeries{{Name: "flat", Color: 0}, {Name: "cum", Color: 1}}}
			for i, f := range p.Top {
				if i == 10 {
					break
				}
				bars.Categories = append(bars.Categories, f.Function)
				bars.Series[0].Values = append(bars.Series[0].Values, float64(f.Flat)*scale)
				bars.Series[1].Values = append(bars.Series[1].Values, float64(f.Cum)*scale)
			}
			s.Plots = append(s.Plots, template.HTML(bars.SVG())) //nolint:gosec // escaped by package plot
			t := htmlTable{Caption: title, Head: []string{"function", "flat", "cum"}}
			for i, f := range p.Top {
				if i == 10 {
					break
				}
				t.Rows = append(t.Rows, []htmlCell{{Text: f.Function}, {Text: profileValue(f.Flat, p.Unit), Class: "num"},
					{Text: profileValue(f.Cum, p.Unit), Class: "num"}})
			}
			s.Tables = append(s.Tables, t)
		}
	}
	return s, len(s.Tables) > 0
}

func profileValue(v int64, unit string) string {
	switch unit {
	case "nanoseconds":
		return Duration(time.Duration(v))
	case "bytes":
		return Bytes(v)
	}
	return fmt.Sprintf("%d %s", v, unit)
}

func naSeconds(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return seconds(x)
}
