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
const overheadNote = "Hodges–Lehmann overhead (paired where the table says so)"

// sigDot is the class of the dots marking significant overheads, which
// the layout checks find them by.
const sigDot = "sig"

// overheadGroups returns the variants whose overhead at stat has a
// value, in the report's order, grouped for plotting: all in one group,
// or each in its own when their largest overheads lie more than
// overheadSpread apart.
func (r *Experiment) overheadGroups(stat string, at func(analysis.Level) bool) [][]string {
	var vs []string
	size := map[string]float64{}
	for _, v := range r.variants {
		for _, o := range r.Overheads {
			if o.Variant != v || o.Name != stat || math.IsNaN(o.Abs) || !at(o.Level) {
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
// percentile of overheadStats against the load, with their 95% CI: a
// chart per percentile, and per variant when the variants' overheads
// there lie more than overheadSpread apart. A dot marks an overhead
// significant after Holm's correction.
func (r *Experiment) overheadCharts(x plot.Axis) []template.HTML {
	var out []template.HTML
	for _, stat := range overheadStats {
		groups := r.overheadGroups(stat, func(analysis.Level) bool { return true })
		for _, g := range groups {
			if len(g) == 0 {
				continue
			}
			id, title := "overhead-vs-rate-"+stat, "Overhead against "+r.Baseline+" at "+stat
			if len(groups) > 1 {
				id, title = id+"-"+g[0], g[0]+": "+title
			}
			c := &plot.Chart{ID: id, Title: title, X: x,
				Y:    plot.Axis{Label: stat + " overhead", Unit: plot.Seconds, ZeroBased: true},
				Note: "line: " + overheadNote + "; band: 95% CI; dot: significant after Holm"}
			var dots []plot.Series
			for _, v := range g {
				color := slices.Index(r.variants, v)
				s := plot.Series{Name: v, Style: plot.Line, Color: color}
				for _, o := range r.Overheads {
					if o.Variant != v || o.Name != stat || math.IsNaN(o.Abs) {
						continue
					}
					lo, hi := math.NaN(), math.NaN()
					if o.CIOK {
						lo, hi = o.AbsLo, o.AbsHi
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

// overheadBars draws each variant's overheads against the baseline at
// lv, with their 95% CI, a plot per percentile of overheadStats: bars
// over the variants, on a log axis when they are all above zero and lie
// more than overheadSpread apart. A significant overhead's label ends in
// " *".
func (r *Experiment) overheadBars(lv analysis.Level) []template.HTML {
	var out []template.HTML
	for _, stat := range overheadStats {
		b := &plot.Bars{ID: "overhead-vs-rate-" + stat, Title: "Overhead against " + r.Baseline + " at " + lv.String() + ": " + stat,
			Value:  plot.Axis{Label: stat + " overhead", Unit: plot.Seconds, ZeroBased: true},
			Series: []plot.BarSeries{{Color: 0}},
			Note:   "bar: " + overheadNote + "; whisker: 95% CI; * significant after Holm"}
		positive := true
		for _, v := range r.variants {
			if v == r.Baseline {
				continue
			}
			val, lo, hi, sig := math.NaN(), math.NaN(), math.NaN(), false
			for _, o := range r.Overheads {
				if o.Variant == v && o.Name == stat && o.Level == lv {
					val, sig = o.Abs, o.Significant
					if o.CIOK {
						lo, hi = o.AbsLo, o.AbsHi
					}
				}
			}
			b.Categories = append(b.Categories, v)
			addBar(&b.Series[0], val, lo, hi)
			b.Series[0].Marks = append(b.Series[0].Marks, sig)
			positive = positive && (math.IsNaN(val) || val > 0)
		}
		if !slices.ContainsFunc(b.Series[0].Values, func(v float64) bool { return !math.IsNaN(v) }) {
			continue
		}
		if positive && len(r.overheadGroups(stat, func(l analysis.Level) bool { return l == lv })) > 1 {
			b.Value.Scale, b.Value.ZeroBased = plot.Log, false
			b.Note += " (log axis)"
		}
		out = append(out, bars(b))
	}
	return out
}
