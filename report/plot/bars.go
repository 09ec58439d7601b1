package plot

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// Bar chart sizes in pixels.
const (
	barSlot      = 18 // rows give each bar this much height
	barThick     = 14 // of which the bar fills this much
	barRowGap    = 10 // between rows
	barMinHeight = 160
	barMaxLabel  = 48 // runes of a category label; longer ones are cut with "…"
)

// Bars is a horizontal bar chart: one row per category, one bar per series
// in each row. Its zero value draws an empty 640×160 chart saying "no data".
type Bars struct {
	// ID is the svg element's id attribute; optional.
	ID string
	// Title is drawn above the plot area and is the chart's accessible name.
	Title string
	// Categories label the rows, top to bottom. Labels too long for the
	// left margin (about 48 characters at the default width) are cut with
	// "…"; the full text is the row's tooltip.
	Categories []string
	// Series are drawn in order, top to bottom within each row.
	Series []BarSeries
	// Value is the horizontal axis the bars are measured on: on a linear
	// scale bars start at 0 (set ZeroBased to keep 0 in an automatic
	// range), on a log scale at the left end, which an automatic range puts
	// at least half a decade below the smallest bar.
	Value Axis
	// Width is the width in pixels; 0 means 640. The height follows from
	// the rows, about 18 pixels per bar plus gaps, and is at least 160.
	Width int
	// Note is an optional line of small text under the chart.
	Note string
}

// BarSeries is one bar in each row, drawn in one colour.
type BarSeries struct {
	// Name is the legend entry; the legend shows when more than one series
	// has a bar, and "" keeps the series out of it.
	Name string
	// Values holds one value per category. A NaN, a value the axis cannot
	// show or a missing entry draws no bar but "n/a".
	Values []float64
	// Lo and Hi, when set, are a whisker per bar, such as p90 to p99 for a
	// p50 bar. A NaN or missing entry draws none.
	Lo, Hi []float64
	// Color indexes Palette (modulo its length); -1, or any negative value,
	// picks the next colour no other series uses.
	Color int
	// Marks, when set, marks bars: a marked bar's value label ends in
	// " *", such as an overhead significant after a correction.
	Marks []bool
}

// WriteSVG writes c as one <svg> element with class "plot", xmlns, viewBox,
// width, height, role="img" and aria-label set, like Chart.WriteSVG. Its
// data-points attribute counts the bars drawn and data-series the series
// with a bar. A nil Bars draws as an empty one.
func (c *Bars) WriteSVG(w io.Writer) error { return writeSVG(w, c.render) }

// SVG returns what WriteSVG writes. Text in it is escaped, so an
// html/template caller may wrap it in template.HTML.
func (c *Bars) SVG() string { return svgString(c.render) }

// render draws c into b.
func (c *Bars) render(b *bytes.Buffer) {
	if c == nil {
		c = &Bars{}
	}
	p := newBarPlan(c)
	p.arrange(0)
	if p.fitLegend() {
		p.arrange(p.leg.w + legendGap)
		p.leg.x, p.leg.y = p.w-8-p.leg.w, p.area.y0
	}
	p.draw(b)
}

// barPlan is a bar chart being laid out. It reuses a Chart's plan for the
// frame: size, plot area, value axis (as x), colours, counts and legend.
type barPlan struct {
	plan
	b      *Bars
	slot   []int    // position of each series within a row; -1 for none
	labels []string // category labels as drawn
	top    float64  // height above the plot area
	bottom float64  // height below it
	left   float64  // width left of it, for the category labels
	pad    float64  // width right of it, for value labels
	rowH   float64  // height of a row
}

// newBarPlan counts what c can draw, the range of its values and the
// margins its labels need.
func newBarPlan(c *Bars) *barPlan {
	p := &barPlan{b: c, slot: make([]int, len(c.Series))}
	p.c = &Chart{ID: c.ID, Title: c.Title, X: c.Value, Width: c.Width, Note: c.Note}
	p.w = defaultWidth
	if c.Width > 0 {
		p.w = float64(min(c.Width, maxSize))
	}
	picks := make([]Series, len(c.Series))
	for i, s := range c.Series {
		picks[i].Color = s.Color
	}
	p.colors = assignColors(picks)
	p.counts = make([]int, len(c.Series))
	labelW := 0.0
	for i, s := range c.Series {
		for j := range c.Categories {
			v, ok := c.Value.Scale.forward(at(s.Values, j))
			if !ok {
				continue
			}
			p.counts[i]++
			p.xe.add(v)
			if c.Value.Scale == Log {
				p.xe.add(v - 0.5) // so that no bar is a sliver
			}
			if lo, hi, ok := p.whisker(i, j); ok {
				p.xe.add(lo)
				p.xe.add(hi)
			}
			labelW = max(labelW, textWidth(c.Value.Unit.Format(s.Values[j]), fontSmall))
		}
		p.points += p.counts[i]
		p.slot[i] = -1
		if p.counts[i] > 0 {
			p.slot[i] = p.series
			p.series++
		}
	}
	p.pad = max(16, min(labelW+8, p.w/4))

	runes := min(barMaxLabel, max(8, int((p.w/2-12)/(fontTick*0.6))))
	p.left = 14
	for _, cat := range c.Categories {
		l := cut(cat, runes)
		p.labels = append(p.labels, l)
		p.left = max(p.left, textWidth(l, fontTick)+12)
	}

	p.top, p.bottom = 10, 28
	if c.Title != "" {
		p.top += 22
	}
	if c.Value.Label != "" {
		p.bottom += 18
	}
	if c.Note != "" {
		p.bottom += 16
	}
	rows := float64(len(c.Categories))
	p.h = p.top + p.bottom + rows*float64(max(1, p.series)*barSlot+barRowGap)
	p.h = min(max(p.h, barMinHeight), maxSize)
	return p
}

// whisker returns the ends of the whisker of series i in row j, in scale
// space, low end first.
func (p *barPlan) whisker(i, j int) (lo, hi float64, ok bool) {
	s, sc := p.b.Series[i], p.b.Value.Scale
	lo, okl := sc.forward(at(s.Lo, j))
	hi, okh := sc.forward(at(s.Hi, j))
	return min(lo, hi), max(lo, hi), okl && okh
}

// arrange places the plot area, leaving right pixels for a legend at the
// right, and resolves the value axis against it.
func (p *barPlan) arrange(right float64) {
	y0 := p.top
	y1 := max(p.h-p.bottom, y0+minPlot)
	x0 := p.left
	x1 := max(p.w-p.pad-right, x0+minPlot)
	p.x = fitAxis(p.b.Value, p.xe, x0, x1, true)
	p.area = rect{x0, y0, x1, y1}
	p.rowH = (y1 - y0) / float64(max(1, len(p.b.Categories)))
}

// fitLegend sizes the legend, when more than one series has a bar, and puts
// it in the top-right or bottom-right corner of the plot area, whichever
// covers no bar or label. It reports whether the legend should go right of
// the plot area instead, which needs a new layout.
func (p *barPlan) fitLegend() bool {
	l := &p.leg
	*l = legend{}
	if p.series < 2 {
		return false
	}
	for i, s := range p.b.Series {
		if s.Name == "" || p.counts[i] == 0 {
			continue
		}
		l.add(s.Name, p.colors[i], &barSwatch)
	}
	if !l.size() {
		return false
	}
	a := p.area
	aw, ah := a.x1-a.x0, a.y1-a.y0
	l.x, l.y = a.x1-8-l.w, a.y0+8
	if l.w <= aw*0.6 && l.h <= ah*0.7 {
		for _, y := range []float64{a.y0 + 8, a.y1 - 8 - l.h} {
			if !p.barsCover(rect{l.x - 3, y - 3, l.x + l.w + 3, y + l.h + 3}) {
				l.y = y
				return false
			}
		}
	}
	return aw-l.w-legendGap >= max(240, aw*0.6)
}

// barSwatch is how the legend draws a bar series: a thick line.
var barSwatch = Series{Width: 3}

// barsCover reports whether r would hide part of a bar, whisker or label.
func (p *barPlan) barsCover(r rect) bool {
	for _, g := range p.bars() {
		for _, q := range g.boxes() {
			if q.x0 < r.x1 && r.x0 < q.x1 && q.y0 < r.y1 && r.y0 < q.y1 {
				return true
			}
		}
	}
	return false
}

// cut shortens s to at most n runes, ending it with "…" when it was
// longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:max(0, n-1)]) + "…"
}
