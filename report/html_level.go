package report

import (
	"html/template"
	"math"
	"slices"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
)

// oneLevel returns the level every counted run of r is at (every run,
// when none is counted), when there is only one: a line against the load
// would then be a single point.
func (r *Experiment) oneLevel() (analysis.Level, bool) {
	var levels []analysis.Level
	for _, counted := range []bool{true, false} {
		for _, l := range r.Levels {
			if (len(l.RunIDs) > 0 || !counted) && !slices.Contains(levels, l.Level) {
				levels = append(levels, l.Level)
			}
		}
		if len(levels) > 0 {
			break
		}
	}
	if len(levels) != 1 {
		return analysis.Level{}, false
	}
	return levels[0], true
}

// overheadLevels returns the levels at which r has a p50 or p99
// overhead with a value, the ones the overhead plots draw.
func (r *Experiment) overheadLevels() []analysis.Level {
	var levels []analysis.Level
	for _, o := range r.Overheads {
		if (o.Name == "p50" || o.Name == "p99") && !math.IsNaN(o.Abs) && !slices.Contains(levels, o.Level) {
			levels = append(levels, o.Level)
		}
	}
	return levels
}

// noOverheadPlot says why a section against the load has no overhead plot.
const noOverheadPlot = "No p50 or p99 overhead has a value to draw: the overhead table gives the reason for each."

// oneLevelSection draws, when every run was at one level lv, what the
// plots against the load would: latency, overhead and errors, as bars
// over the variants.
func (r *Experiment) oneLevelSection(lv analysis.Level) htmlSection {
	s := htmlSection{ID: "levels", Title: "At the one level, " + lv.String(),
		Intro: []string{"Every counted run was at " + lv.String() + ", so there is no line against the load to draw: " +
			"these bars set the variants side by side at that level."}}
	lat := &plot.Bars{ID: "latency-vs-rate", Title: "Latency at " + lv.String() + ": p50 and p99",
		Value:  plot.Axis{Label: "latency", Unit: plot.Seconds, ZeroBased: true},
		Series: []plot.BarSeries{{Name: "p50", Color: 0}, {Name: "p99", Color: 1}}}
	errs := &plot.Bars{ID: "errors-vs-rate", Title: "Error ratio at " + lv.String(),
		Value: plot.Axis{Label: "errors", Unit: plot.Ratio, ZeroBased: true}, Series: []plot.BarSeries{{Color: 3}},
		Note: "bar: median over runs; whisker: range of the runs"}
	ciRuns := false
	for _, v := range r.variants {
		for _, l := range r.Levels {
			if l.Variant != v || l.Level != lv {
				continue
			}
			lat.Categories = append(lat.Categories, v)
			for i, stat := range []string{"p50", "p99"} {
				c, _ := l.Cell(stat)
				val, lo, hi := math.NaN(), math.NaN(), math.NaN()
				if len(c.Values) > 0 {
					val = c.Median
					lo, hi = c.Band()
					ciRuns = ciRuns || c.CIOK
				}
				addBar(&lat.Series[i], val, lo, hi)
			}
			errs.Categories = append(errs.Categories, v)
			lo, hi := l.ErrorBand()
			addBar(&errs.Series[0], l.ErrorRatio, lo, hi)
		}
	}
	lat.Note = "bar: median over runs; whisker: range of the runs (95% CI of the median from 6 runs up)"
	if ciRuns {
		lat.Note = "bar: median over runs; whisker: 95% CI of the median (range of the runs below 6 runs)"
	}
	s.Plots = append(s.Plots, bars(lat))
	if slices.Contains(r.overheadLevels(), lv) {
		s.Plots = append(s.Plots, r.overheadBars(lv)...)
	} else if len(r.Overheads) > 0 {
		s.Intro = append(s.Intro, noOverheadPlot)
	}
	if slices.ContainsFunc(slices.Concat(errs.Series[0].Values, errs.Series[0].Hi), func(x float64) bool { return x > 0 }) {
		s.Plots = append(s.Plots, bars(errs))
	} else {
		s.Intro = append(s.Intro, noErrors)
	}
	return s
}

// addBar appends a bar with its whisker to s.
func addBar(s *plot.BarSeries, v, lo, hi float64) {
	s.Values, s.Lo, s.Hi = append(s.Values, v), append(s.Lo, lo), append(s.Hi, hi)
}

// bars renders b for the page. The plot package escapes every text it
// writes, so its output is safe HTML.
func bars(b *plot.Bars) template.HTML {
	return template.HTML(b.SVG()) //nolint:gosec // escaped by package plot
}
