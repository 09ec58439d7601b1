package report

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// hopSection tabulates what each hop of a traced graph adds, per variant,
// from the traces of every run at the detail level.
func (r *Experiment) hopSection(d *Detail, _ []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "hops", Title: "Per-hop breakdown at " + d.Level.String(),
		Intro: []string{"From the traces of every run at this level: network is a caller's client span less the callee's server span " +
			"(the network, any proxy between them, the client's HTTP stack); framework is a server span less its work and downstream calls " +
			"(filters, routing, the framework); filter is a server's traced filter, named by its span, from its span's start to the next span's: " +
			"its own time before it handed the request on, such as an API server's priority-and-fairness queue wait and dispatch."}}
	t := htmlTable{Head: []string{"variant", "caller", "callee", "kind", "samples", "p50", "p90", "p99"}}
	bars := &plot.Bars{ID: "hops", Title: "What each hop adds at " + d.Level.String(),
		Value: plot.Axis{Label: "time", Unit: plot.Seconds, ZeroBased: true},
		Note:  "bar: p50 over every run's traced requests; whisker: p50 to p99"}
	row := map[string]int{}
	var orphans []string
	for vi, v := range r.variants {
		var points []store.ProbePoint
		for _, run := range d.Runs {
			if run.Variant == v && run.Level == d.Level {
				points = append(points, run.Probes...)
			}
		}
		if n := analysis.OrphanSpans(points); n > 0 {
			orphans = append(orphans, fmt.Sprintf("%s %d", v, n))
		}
		hops := analysis.Hops(points)
		if len(hops) == 0 {
			continue
		}
		ser := plot.BarSeries{Name: v, Color: vi}
		for _, h := range hops {
			cat := fmt.Sprintf("%s → %s, %s", cmp.Or(h.Caller, "load"), h.Callee, h.Kind)
			if h.Kind == "filter" {
				cat = fmt.Sprintf("%s: %s filter", h.Caller, h.Callee)
			}
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
				{Text: fmt.Sprint(h.Count), Class: "num"}, {Text: units.Seconds(h.P50), Class: "num"},
				{Text: units.Seconds(h.P90), Class: "num"}, {Text: units.Seconds(h.P99), Class: "num"}})
		}
	}
	if len(t.Rows) == 0 {
		return s, false
	}
	hopAxis(bars)
	if len(orphans) > 0 {
		s.Intro = append(s.Intro, "Spans whose parent never reached latlab were left out, rather than taken for requests "+
			"from the load generator: "+strings.Join(orphans, ", ")+".")
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
		return units.Duration(time.Duration(v))
	case "bytes":
		return units.Bytes(v)
	}
	return fmt.Sprintf("%d %s", v, unit)
}

// hopAxis puts the bars of b on a log axis when its values and whiskers
// span more than a factor of 20: a p99 tail of milliseconds would
// otherwise squash bars of microseconds to a pixel.
func hopAxis(b *plot.Bars) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range b.Series {
		for _, v := range slices.Concat(s.Values, s.Hi) {
			if v > 0 { // NaN is not
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo > 0 && hi/lo > 20 {
		b.Value.Scale, b.Value.ZeroBased = plot.Log, false
		b.Note += " (log axis)"
	}
}
