package report

import (
	"html/template"
	"math"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
)

// rateSection draws what changes with the load: latency, overhead and
// errors against the level, one colour per variant.
func (r *Experiment) rateSection() htmlSection {
	if lv, ok := r.oneLevel(); ok {
		return r.oneLevelSection(lv)
	}
	s := htmlSection{ID: "levels", Title: "Against the load"}
	x := r.levelAxis()
	lat := &plot.Chart{ID: "latency-vs-rate", Title: "Latency against load: p50 (solid) and p99 (dashed)", X: x,
		Y: plot.Axis{Label: "latency", Unit: plot.Seconds, ZeroBased: true}}
	errs := &plot.Chart{ID: "errors-vs-rate", Title: "Error ratio against load", X: x,
		Y: plot.Axis{Label: "errors", Unit: plot.Ratio, ZeroBased: true}, Note: "line: median over runs; band: range of the runs"}
	ciRuns := false
	for i, v := range r.variants {
		p50 := plot.Series{Name: v + " p50", Style: plot.LineMarkers, Color: i}
		p99 := plot.Series{Name: v + " p99", Style: plot.LineMarkers, Color: i, Dashed: true}
		er := plot.Series{Name: v, Style: plot.LineMarkers, Color: i}
		for _, l := range r.Levels {
			if l.Variant != v || len(l.RunIDs) == 0 {
				continue
			}
			lx := levelX(l.Level)
			for _, sp := range []struct {
				s    *plot.Series
				name string
			}{{&p50, "p50"}, {&p99, "p99"}} {
				c, _ := l.Cell(sp.name)
				if len(c.Values) == 0 {
					continue
				}
				lo, hi := c.Band()
				ciRuns = ciRuns || c.CIOK
				sp.s.Points = append(sp.s.Points, plot.Point{X: lx, Y: c.Median})
				sp.s.Lo, sp.s.Hi = append(sp.s.Lo, lo), append(sp.s.Hi, hi)
			}
			lo, hi := l.ErrorBand()
			er.Points = append(er.Points, plot.Point{X: lx, Y: l.ErrorRatio})
			er.Lo, er.Hi = append(er.Lo, lo), append(er.Hi, hi)
		}
		lat.Series = append(lat.Series, p50, p99)
		lat.Series = append(lat.Series, r.expectMarkers(v, i, x)...)
		errs.Series = append(errs.Series, er)
	}

	lat.Note = "line: median over runs; band: range of the runs (95% CI of the median from 6 runs up)"
	if ciRuns {
		lat.Note = "line: median over runs; band: 95% CI of the median (range of the runs below 6 runs)"
	}
	if len(r.Expectations) > 0 {
		lat.Note += "; thick bars: the spec's expect:"
	}
	lat.Rules = r.sloRules()
	s.Plots = append(s.Plots, svg(lat))
	switch ls := r.overheadLevels(); {
	case len(ls) == 1:
		// Overheads at one level only: bars, not a dot on a line axis.
		s.Plots = append(s.Plots, r.overheadBars(ls[0])...)
	case len(ls) > 1:
		s.Plots = append(s.Plots, r.overheadCharts(x)...)
	case len(r.Overheads) > 0:
		s.Intro = append(s.Intro, noOverheadPlot)
	}
	if allZero(errs.Series) {
		s.Intro = append(s.Intro, noErrors)
	} else {
		s.Plots = append(s.Plots, svg(errs))
	}
	return s
}

// noErrors stands for an error-ratio plot that would be a line at zero.
const noErrors = "No request failed in any counted run, so there is no error ratio to plot."

// expectMarkers mark variant v's expect: at p50 and p99, the quantiles
// the latency plot draws: at each level it ran, a short thick bar across
// the level in the variant's colour i, on the x axis x.
func (r *Experiment) expectMarkers(v string, i int, x plot.Axis) []plot.Series {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range r.Levels {
		lo, hi = min(lo, levelX(l.Level)), max(hi, levelX(l.Level))
	}
	// Half a bar: 3% of the axis, or of the level itself when it is alone.
	half := func(x float64) (float64, float64) { d := 0.03 * (hi - lo); return x - d, x + d }
	switch {
	case x.Scale == plot.Log:
		f := math.Pow(hi/lo, 0.03)
		half = func(x float64) (float64, float64) { return x / f, x * f }
	case hi == lo:
		half = func(x float64) (float64, float64) { return x * 0.97, x * 1.03 }
	}
	var out []plot.Series
	for _, stat := range []string{"p50", "p99"} {
		s := plot.Series{Name: v + " " + stat + " expected", Color: i, Width: 4}
		for _, e := range r.Expectations {
			if e.Variant == v && e.Name == stat {
				a, b := half(levelX(e.Level))
				s.Points = append(s.Points, plot.Point{X: a, Y: e.Expected}, plot.Point{X: b, Y: e.Expected}, plot.Point{X: math.NaN(), Y: math.NaN()})
			}
		}
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// levelAxis is the x axis of plots against the load, over every level:
// the rate, on a log scale when the rates span more than a factor of 20;
// the concurrency in closed loop.
func (r *Experiment) levelAxis() plot.Axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	closed := true
	for _, l := range r.Levels {
		if l.Rate > 0 {
			closed = false
		}
		x := levelX(l.Level)
		lo, hi = min(lo, x), max(hi, x)
	}
	a := plot.Axis{Label: "target rate", Unit: plot.PerSecond, ZeroBased: true}
	if closed {
		a = plot.Axis{Label: "concurrency", Unit: plot.Plain, ZeroBased: true}
	}
	if lo > 0 && hi/lo > 20 {
		a.Scale, a.ZeroBased = plot.Log, false
		a.Min = &lo
	}
	// One range for every plot against the load, whichever levels its
	// data has: the plots are read side by side.
	if hi > 0 && !math.IsInf(hi, 0) {
		a.Max = &hi
	}
	return a
}

// levelX places a level on the x axis: its rate, or its concurrency in
// closed loop.
func levelX(l analysis.Level) float64 {
	if l.Rate > 0 {
		return l.Rate
	}
	return float64(l.Concurrency)
}

// sloRules are the SLO's latency limits, drawn on latency plots.
func (r *Experiment) sloRules() []plot.Rule {
	var out []plot.Rule
	for _, l := range r.Verdict.SLO.Latency {
		if l.Name == "p50" || l.Name == "p99" {
			out = append(out, plot.Rule{Y: l.Latency.Seconds(), Label: "SLO " + l.Name + " < " + l.Latency.String()})
		}
	}
	return out
}

// svg renders c for the page. The plot package escapes every text it
// writes, so its output is safe HTML.
func svg(c *plot.Chart) template.HTML {
	return template.HTML(c.SVG()) //nolint:gosec // escaped by package plot
}

// allZero reports whether every point and band of ss is zero (or NaN).
func allZero(ss []plot.Series) bool {
	for _, s := range ss {
		for i, p := range s.Points {
			if p.Y > 0 || i < len(s.Hi) && s.Hi[i] > 0 {
				return false
			}
		}
	}
	return true
}
