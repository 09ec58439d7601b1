package report

import (
	"html/template"
	"math"
	"slices"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
)

// overheadStats are the percentiles whose overheads the plots draw, each
// on plots of its own: a p99's milliseconds beside a p50's microseconds
// would flatten the p50 on the zero line.
var overheadStats = []string{"p50", "p99"}

// overheadSpread is how many times larger one variant's overheads at a
// percentile may be than another's before each gets a plot of its own
// (lines) or the bars a log axis: past it, the smaller would sit within
// a few pixels of zero.
const overheadSpread = 10

// overheadNote says what the overhead plots draw.
const overheadNote = "Hodges–Lehmann overhead"

// sigDot is the class of the dots marking significant overheads, which
// the layout checks find them by.
const sigDot = "sig"

// overheadGroups returns the variants whose overhead at stat has a
// value, in the report's order, grouped for plotting: all in one group,
// or each in its own when their largest overheads lie more than
// overheadSpread apart.
func (r *Experiment) overheadGroups(stat string) [][]string {
	var vs []string
	size := map[string]float64{}
	for _, v := range r.variants {
		for _, o := range r.Overheads {
			if o.Variant != v || o.Name != stat || math.IsNaN(o.Abs) {
				continue
			}
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
			size[v] = max(size[v], math.Abs(o.Abs))
		}
	}
	if len(vs) < 2 {
		return [][]string{vs}
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		lo, hi = min(lo, size[v]), max(hi, size[v])
	}
	if hi <= overheadSpread*lo {
		return [][]string{vs}
	}
	var out [][]string
	for _, v := range vs {
		out = append(out, []string{v})
	}
	return out
}

// overheadCharts draws the overheads against the baseline at each
// percentile of overheadStats against the load, with their CI at Holm's level: a
// chart per percentile, and per variant when the variants' overheads
// there lie more than overheadSpread apart. A dot marks an overhead
// significant after Holm's correction.
func (r *Experiment) overheadCharts(x plot.Axis) []template.HTML {
	var out []template.HTML
	for _, stat := range overheadStats {
		groups := r.overheadGroups(stat)
		for _, g := range groups {
			if len(g) == 0 {
				continue
			}
			id, prefix := "overhead-vs-rate-"+stat, ""
			if len(groups) > 1 {
				id, prefix = id+"-"+g[0], g[0]+": "
			}
			if lv, one := r.oneOverheadLevel(stat, g); one {
				// A line of one x would be a dot: bars at that level.
				out = append(out, bars(r.statBars(stat, lv, g, id, prefix)))
				continue
			}
			title := prefix + "Overhead against " + r.Baseline + " at " + stat
			c := &plot.Chart{ID: id, Title: title, X: x,
				Y:    plot.Axis{Label: stat + " overhead", Unit: plot.Seconds, ZeroBased: true},
				Note: "line: " + overheadNote + "; band: CI at Holm's level; dot: significant after Holm"}
			var dots []plot.Series
			for _, v := range g {
				color := slices.Index(r.variants, v)
				s := plot.Series{Name: v, Style: plot.Line, Color: color}
				for _, o := range r.Overheads {
					if o.Variant != v || o.Name != stat || math.IsNaN(o.Abs) {
						continue
					}
					lo, hi := math.NaN(), math.NaN()
					if iv := o.CI(); iv.OK {
						lo, hi = iv.Lo, iv.Hi
					}
					p := plot.Point{X: levelX(o.Level), Y: o.Abs}
					s.Points = append(s.Points, p)
					s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
					if o.Significant {
						// One series a dot, so that each can be found
						// where it is drawn.
						dots = append(dots, plot.Series{Points: []plot.Point{p}, Style: plot.Markers, Color: color, Width: 3.5, Class: sigDot})
					}
				}
				c.Series = append(c.Series, s)
			}
			// The lines in the report's order, then the dots over them.
			c.Series = append(c.Series, dots...)
			out = append(out, svg(c))
		}
	}
	return out
}

// oneOverheadLevel returns the level of the overheads of variants vs at
// stat that have a value, when they are all at one.
func (r *Experiment) oneOverheadLevel(stat string, vs []string) (analysis.Level, bool) {
	var levels []analysis.Level
	for _, o := range r.Overheads {
		if slices.Contains(vs, o.Variant) && o.Name == stat && !math.IsNaN(o.Abs) && !slices.Contains(levels, o.Level) {
			levels = append(levels, o.Level)
		}
	}
	if len(levels) != 1 {
		return analysis.Level{}, false
	}
	return levels[0], true
}

// overheadBars draws each variant's overheads against the baseline at
// lv, with their CI at Holm's level, a plot per percentile of overheadStats (see
// statBars).
func (r *Experiment) overheadBars(lv analysis.Level) []template.HTML {
	var out []template.HTML
	vs := slices.DeleteFunc(slices.Clone(r.variants), func(v string) bool { return v == r.Baseline })
	for _, stat := range overheadStats {
		if b := r.statBars(stat, lv, vs, "overhead-vs-rate-"+stat, ""); b != nil {
			out = append(out, bars(b))
		}
	}
	return out
}

// statBars draws the overheads of variants vs at stat and lv as bars with
// their CI at Holm's level as whiskers, its id and its title prefixed with prefix:
// on a log axis when they are all above zero and lie more than
// overheadSpread apart. A significant overhead's label ends in " *". It
// returns nil when none has a value.
func (r *Experiment) statBars(stat string, lv analysis.Level, vs []string, id, prefix string) *plot.Bars {
	b := &plot.Bars{ID: id, Title: prefix + "Overhead against " + r.Baseline + " at " + lv.String() + ": " + stat,
		Value:  plot.Axis{Label: stat + " overhead", Unit: plot.Seconds, ZeroBased: true},
		Series: []plot.BarSeries{{Color: 0}},
		Note:   "bar: " + overheadNote + "; whisker: CI at Holm's level; * significant after Holm"}
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		val, l, h, sig := math.NaN(), math.NaN(), math.NaN(), false
		for _, o := range r.Overheads {
			if o.Variant == v && o.Name == stat && o.Level == lv {
				val, sig = o.Abs, o.Significant
				if iv := o.CI(); iv.OK {
					l, h = iv.Lo, iv.Hi
				}
			}
		}
		b.Categories = append(b.Categories, v)
		addBar(&b.Series[0], val, l, h)
		b.Series[0].Marks = append(b.Series[0].Marks, sig)
		if !math.IsNaN(val) {
			lo, hi = min(lo, val), max(hi, math.Abs(val))
		}
	}
	if math.IsInf(lo, 1) {
		return nil
	}
	if lo > 0 && hi > overheadSpread*lo {
		b.Value.Scale, b.Value.ZeroBased = plot.Log, false
		b.Note += " (log axis)"
	}
	return b
}
