package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
	"github.com/latlab/latlab/store"
)

// maxProbeSeries caps the lines of one probe plot. A plot that would
// have more is drawn once per variant instead; lines one variant still has
// beyond the cap are left out, and the plot's note and the section's
// notes say which.
const maxProbeSeries = 12

// Probe plots are small multiples, several to a row. One with more than
// maxNarrowSeries lines takes a row of its own, probeWideWidth wide, for a
// legend beside the data rather than over it.
const (
	probePlotWidth, probePlotHeight = 440, 270
	probeWideWidth                  = 900
	maxNarrowSeries                 = 4
)

// A probeLine is one line of a probe plot: a variant's series with one
// quantile or label set.
type probeLine struct {
	variant int     // index in r.variants
	sub     string  // what tells it apart from the plot's other lines of its variant
	order   float64 // sorts sub within the plot
	pts     []plot.Point
}

// A probePlot is one probe plot before it is drawn.
type probePlot struct {
	title  string
	family string
	kind   probeKind
	lines  []*probeLine
	index  map[string]*probeLine
}

// probeKind says what a probe plot draws.
type probeKind int

const (
	quantilePlot probeKind = iota // one label set's windowed quantiles
	ratePlot                      // a family's observations per second, a line per label set
	seriesPlot                    // one series, a line per label set: processes, queries
)

// A probeGroup is a heading of the probes section with its plots: one
// metric family, or the processes.
type probeGroup struct {
	title, intro string
	common       string // names the labels every series of the group has
	order        int
	plots        []*probePlot
	index        map[string]*probePlot
}

// A probeChartGroup is one heading's probe charts, ready to draw.
type probeChartGroup struct {
	title, intro string
	code         bool // the title is a metric's name
	charts       []*plot.Chart
}

// probeCharts draws the probes of each representative run over time as
// small multiples, grouped under headings: per metric family, one chart
// per label set with its windowed quantiles on its own scale (a filter
// taking microseconds beside one taking a second would otherwise lie flat
// at 0), then the observations per second on a chart of their own with a
// per-second axis; per process series, one chart. The notes name any line
// left out.
func (r *Experiment) probeCharts(reps []*analysis.RunDetail) ([]probeChartGroup, []string) {
	samples, common, span := r.probeSamples(reps)
	groups := map[string]*probeGroup{}
	for _, sm := range samples {
		gk := probeGroupKey(sm.p)
		pl, sub, order := r.probePlace(groups, sm.p, without(sm.labels, common[gk]), common[gk])
		key := fmt.Sprint(sm.variant) + "\x00" + sub
		l := pl.index[key]
		if l == nil {
			l = &probeLine{variant: sm.variant, sub: sub, order: order}
			pl.index[key] = l
			pl.lines = append(pl.lines, l)
		}
		l.pts = append(l.pts, plot.Point{X: sm.x, Y: sm.p.Value})
	}
	sorted := slices.SortedFunc(maps.Values(groups), func(a, b *probeGroup) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.title, b.title))
	})
	var out []probeChartGroup
	var notes, single, zero []string
	for _, g := range sorted {
		cg := probeChartGroup{title: g.title, intro: strings.TrimSpace(g.intro + " " + g.common), code: g.order != probeOrder("process")}
		for _, pl := range g.plots {
			charts, left := r.probePlotCharts(pl)
			notes = append(notes, left...)
			for _, c := range charts {
				switch {
				case oneTime(c, max(span, 1)):
					single = append(single, g.title+" "+c.Title)
				case atZero(c):
					zero = append(zero, g.title+" "+c.Title)
				default:
					cg.charts = append(cg.charts, r.probeChartAxes(c, pl.family, span))
				}
			}
		}
		if len(cg.charts) > 0 {
			out = append(out, cg)
		}
	}
	if len(single) > 0 {
		notes = append(notes, "Not drawn over time, with one sample in the run drawn (a run shorter than two scrapes or samples); "+
			"the tables above give their values: "+strings.Join(single, "; ")+".")
	}
	if len(zero) > 0 {
		notes = append(notes, "Not drawn, at 0 throughout every run drawn: "+strings.Join(zero, "; ")+".")
	}
	return out, notes
}

// A probeSample is one probe point of a representative run to draw, at
// x seconds from the run's first point.
type probeSample struct {
	variant int
	p       store.ProbePoint
	labels  map[string]string
	x       float64
}

// probeSamples gathers the points to draw of the runs reps, the labels
// every label set of a group shares (by probeGroupKey; processes share
// none), and the longest run's span in seconds.
func (r *Experiment) probeSamples(reps []*analysis.RunDetail) (samples []probeSample, common map[string]map[string]string, span float64) {
	sets := map[string]map[string]map[string]string{} // group → label sets by analysis.LabelKey
	for _, run := range reps {
		if len(run.Probes) == 0 {
			continue
		}
		vi := slices.Index(r.variants, run.Variant)
		labels := analysis.ProbeLabels(run.Probes)
		t0 := slices.MinFunc(run.Probes, func(a, b store.ProbePoint) int { return a.Time.Compare(b.Time) }).Time
		for i, p := range run.Probes {
			if !probeDrawn(p) {
				continue
			}
			x := p.Time.Sub(t0).Seconds()
			span = max(span, x)
			samples = append(samples, probeSample{vi, p, labels[i], x})
			gk := probeGroupKey(p)
			if sets[gk] == nil {
				sets[gk] = map[string]map[string]string{}
			}
			sets[gk][analysis.LabelKey(labels[i])] = labels[i]
		}
	}
	common = map[string]map[string]string{}
	for gk, ls := range sets {
		if gk != "process" {
			common[gk] = commonLabels(ls)
		}
	}
	return samples, common, span
}

// probeChartAxes gives c the time axis every probe chart shares, a
// process's CPU chart its budget, and a chart of many lines the wide
// width.
func (r *Experiment) probeChartAxes(c *plot.Chart, family string, span float64) *plot.Chart {
	// One time axis for all: the charts are read side by side.
	c.X.Min, c.X.Max = new(0.0), new(max(span, 1))
	if family == "cpu_allowed_percent" {
		budget := r.Exp.Design.Budget()
		c.Rules = []plot.Rule{{Y: 100 * budget, Label: fmt.Sprintf("budget %.4g%%", 100*budget)}}
	}
	if len(c.Series) > maxNarrowSeries {
		c.Width = probeWideWidth
	}
	return c
}

// minTimeShare is the least share of the time axis a probe chart's data
// spans to be drawn as lines over time; under it, they would be a dot.
const minTimeShare = 0.02

// oneTime reports whether every point of c is at about one time, within
// minTimeShare of span, the time axis the charts share: a line over time
// would be a dot. One round of scrapes of several targets, which a busy
// machine can leave the only one in a short run, lands a few
// milliseconds apart.
func oneTime(c *plot.Chart, span float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			lo, hi = min(lo, p.X), max(hi, p.X)
		}
	}
	return !(hi-lo >= minTimeShare*span)
}

// atZero reports whether every point of c is 0 (NaN aside): a flat line
// on an axis of nothing, such as a flow-control wait that never waited.
func atZero(c *plot.Chart) bool {
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.Y != 0 && !math.IsNaN(p.Y) {
				return false
			}
		}
	}
	return true
}

// probeDrawn reports whether p is drawn: traces are not (the per-hop
// table has them), nor liveness, nor the count of CPUs allowed, nor the
// bounds of the bucket a quantile fell in (the summary table has them).
func probeDrawn(p store.ProbePoint) bool {
	if _, _, bound := analysis.BucketBound(p.Series); bound {
		return false
	}
	return p.Probe != "traces" && p.Series != "up" && p.Series != "cpus_allowed" && !analysis.ObserverRoute(p)
}

// probeGroupKey names the group p is drawn in: its metric family, or the
// processes.
func probeGroupKey(p store.ProbePoint) string {
	if p.Probe == "process" {
		return "process"
	}
	family, _, _ := strings.Cut(p.Series, ":")
	return p.Probe + "\x00" + family
}

// commonLabels are the labels every one of several label sets has with
// the same value: they tell no series apart. One set has none in common.
func commonLabels(sets map[string]map[string]string) map[string]string {
	if len(sets) < 2 {
		return nil
	}
	var out map[string]string
	first := true
	for _, ls := range sets {
		if first {
			out, first = maps.Clone(ls), false
			continue
		}
		maps.DeleteFunc(out, func(k, v string) bool { return ls[k] != v })
	}
	return out
}

// without returns labels less those in drop.
func without(labels, drop map[string]string) map[string]string {
	if len(drop) == 0 {
		return labels
	}
	out := maps.Clone(labels)
	maps.DeleteFunc(out, func(k, v string) bool { _, ok := drop[k]; return ok })
	return out
}

// probePlace finds the plot that point p is drawn in, making it and its
// group when new, and the sub-name and order of its line there. labels are
// p's as analysis.ProbeLabels keeps them, less common: those every series of the
// group shares, which its intro names instead.
func (r *Experiment) probePlace(groups map[string]*probeGroup, p store.ProbePoint, labels, common map[string]string) (*probePlot, string, float64) {
	family, stat, _ := strings.Cut(p.Series, ":")
	lt := labelText(labels)
	gkey, gtitle, gintro, gorder := probeGroupKey(p), family, "", probeOrder(p.Probe)
	kind, pkey, title, sub, order := seriesPlot, family, probeTitle(family), lt, 0.0
	switch {
	case p.Probe == "process":
		gkey, gtitle = "process", "Processes"
		gintro = "CPU and memory of the targets and of latlab itself (the load generator)."
	case stat == "rate":
		kind, pkey, title = ratePlot, family+"\x00rate", "observations per second"
	case isQuantile(stat):
		kind, pkey, title, sub, order = quantilePlot, family+"\x00q\x00"+analysis.LabelKey(labels), cmp.Or(lt, "all"), stat, statOrder(stat)
		gintro = "Quantiles over the scraper's sliding window, as histogram_quantile computes them from the exported buckets; " +
			"one plot per label set, each on its own scale."
	}
	g := groups[gkey]
	if g == nil {
		g = &probeGroup{title: gtitle, order: gorder, index: map[string]*probePlot{}}
		if len(common) > 0 {
			g.common = "Every series here has " + labelText(common) + "."
		}
		groups[gkey] = g
	}
	g.intro = cmp.Or(g.intro, gintro)
	pl := g.index[pkey]
	if pl == nil {
		pl = &probePlot{title: title, family: family, kind: kind, index: map[string]*probeLine{}}
		g.index[pkey] = pl
		g.plots = append(g.plots, pl)
		// Quantile plots by label set, the rate plot after them.
		slices.SortStableFunc(g.plots, func(a, b *probePlot) int {
			return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.family, b.family),
				cmp.Compare(a.title, b.title))
		})
	}
	return pl, sub, order
}

// probeTitle names a series plot: the process series by what they
// measure, the rest by their name.
func probeTitle(series string) string {
	switch series {
	case "cpu_allowed_percent":
		return "CPU, share of the CPUs allowed"
	case "cpu_percent":
		return "CPU, percent of one core"
	case "rss_bytes":
		return "resident memory"
	case "working_set_bytes":
		return "working set (pods, metrics API)"
	}
	return series
}

// probePlotCharts draws pl: one chart, or one per variant when its lines
// would overflow a legend. Lines beyond maxProbeSeries that still do not
// fit are left out, counted in the chart's note and named in the notes
// returned.
func (r *Experiment) probePlotCharts(pl *probePlot) ([]*plot.Chart, []string) {
	slices.SortStableFunc(pl.lines, func(a, b *probeLine) int {
		return cmp.Or(cmp.Compare(a.variant, b.variant), cmp.Compare(a.order, b.order), cmp.Compare(a.sub, b.sub))
	})
	sets := [][]*probeLine{pl.lines}
	if len(pl.lines) > maxProbeSeries {
		sets = nil
		for _, l := range pl.lines {
			if n := len(sets); n == 0 || sets[n-1][0].variant != l.variant {
				sets = append(sets, nil)
			}
			sets[len(sets)-1] = append(sets[len(sets)-1], l)
		}
	}
	id := "probe-" + idPart(pl.family)
	switch pl.kind {
	case quantilePlot:
		id += "-" + idPart(pl.title)
	case ratePlot:
		id += "-rate"
	}
	var out []*plot.Chart
	var notes []string
	for _, lines := range sets {
		c := &plot.Chart{ID: id, Title: pl.title, Width: probePlotWidth, Height: probePlotHeight,
			X: plot.Axis{Label: "time", Unit: plot.Seconds}, Y: probeAxis(pl.family, pl.kind)}
		one := lines[0].variant
		for _, l := range lines {
			if l.variant != one {
				one = -1
			}
		}
		if one >= 0 && len(r.variants) > 1 {
			c.Title += " (" + r.variants[one] + ")"
		}
		if len(sets) > 1 {
			c.ID += "-" + idPart(r.variants[one])
		}
		if len(lines) > maxProbeSeries {
			var left []string
			for _, l := range lines[maxProbeSeries:] {
				left = append(left, l.sub)
			}
			c.Note = fmt.Sprintf("%d of %d series drawn; the notes below name the rest", maxProbeSeries, len(lines))
			notes = append(notes, fmt.Sprintf("%s, not drawn: %s", c.Title, strings.Join(left, ", ")))
			lines = lines[:maxProbeSeries]
		}
		for i, l := range lines {
			slices.SortStableFunc(l.pts, func(a, b plot.Point) int { return cmp.Compare(a.X, b.X) })
			ser := plot.Series{Name: l.sub, Points: l.pts, Color: i}
			if one < 0 {
				// Several variants: a colour per variant, and the lines of
				// one variant told apart by stroke.
				ser.Name = r.variants[l.variant] + " " + l.sub
				ser.Color = l.variant
				ser.Dashed, ser.Width = probeStroke(pl.kind, l, lines)
			} else if pl.kind == quantilePlot {
				ser.Color = quantileColor(l.sub)
			}
			if pl.kind == ratePlot {
				c.Series = append(c.Series, r.windowFilling(c, ser)...)
				continue
			}
			c.Series = append(c.Series, ser)
		}
		out = append(out, c)
	}
	return out, notes
}

// quantileColor gives a quantile the same colour in every plot.
func quantileColor(stat string) int {
	switch stat {
	case "p50":
		return 0
	case "p90":
		return 1
	case "p99":
		return 2
	case "p100":
		return 3
	}
	return 4
}

// probeStroke tells apart the lines of one variant in a plot shared by
// several: the highest quantile dashed, the next solid, the lower ones
// thin; a label set's first line solid, its second dashed, the rest thin.
func probeStroke(kind probeKind, l *probeLine, lines []*probeLine) (dashed bool, width float64) {
	var mine []*probeLine
	for _, o := range lines {
		if o.variant == l.variant {
			mine = append(mine, o)
		}
	}
	i := slices.Index(mine, l)
	if kind == quantilePlot {
		i = len(mine) - 1 - i // from the highest quantile down
		switch i {
		case 0:
			return true, 0
		case 1:
			return false, 0
		}
		return false, 0.8
	}
	switch i {
	case 0:
		return false, 0
	case 1:
		return true, 0
	}
	return false, 0.8
}

// idPart makes s usable in an element id: letters, digits, - and _ kept,
// anything else as _.
func idPart(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			return c
		}
		return '_'
	}, s)
}

// probeAxis is the y axis of a probe plot: a rate per second, else the
// unit the family's name gives, as Prometheus names them.
func probeAxis(family string, kind probeKind) plot.Axis {
	switch {
	case kind == ratePlot:
		return plot.Axis{Label: "rate", Unit: plot.PerSecond, ZeroBased: true}
	case strings.HasSuffix(family, "_seconds"):
		return plot.Axis{Label: "time", Unit: plot.Seconds, ZeroBased: true}
	case strings.HasSuffix(family, "_bytes"):
		return plot.Axis{Label: "size", Unit: plot.Bytes, ZeroBased: true}
	case strings.HasSuffix(family, "_percent"):
		return plot.Axis{Label: "percent", Unit: plot.Plain, ZeroBased: true}
	case strings.HasSuffix(family, "_ratio"):
		return plot.Axis{Label: "ratio", Unit: plot.Ratio, ZeroBased: true}
	}
	return plot.Axis{Label: family, Unit: plot.Plain, ZeroBased: true}
}
