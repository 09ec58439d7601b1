package plot

import (
	"unicode/utf8"
)

// Sizes in pixels.
const (
	defaultWidth  = 640
	defaultHeight = 360
	maxSize       = 16384 // larger Width or Height is clamped
	fontTick      = 11
	fontLabel     = 12
	fontTitle     = 14
	fontSmall     = 10
	tickLen       = 4
	legendGap     = 12
	minPlot       = 20 // the plot area never gets smaller, even if the chart overflows
)

// rect is an axis-aligned rectangle, x0 ≤ x1 and y0 ≤ y1.
type rect struct{ x0, y0, x1, y1 float64 }

// plan is a chart being laid out: everything derived from the Chart before
// any of it is written.
type plan struct {
	c      *Chart
	w, h   float64
	colors []string
	counts []int // placeable points per series
	points int   // sum of counts
	series int   // series with a placeable point
	xe, ye extent
	area   rect
	x, y   axisLayout
	geo    []geometry
	leg    legend
	prefix string // of the ids of the clip path and markers
}

// newPlan counts what c can draw and the data ranges of its axes.
func newPlan(c *Chart) *plan {
	p := &plan{c: c, w: defaultWidth, h: defaultHeight}
	if c.Width > 0 {
		p.w = float64(min(c.Width, maxSize))
	}
	if c.Height > 0 {
		p.h = float64(min(c.Height, maxSize))
	}
	p.prefix = idPrefix(c)
	p.colors = assignColors(c.Series)
	p.counts = make([]int, len(c.Series))
	for i, s := range c.Series {
		for j, pt := range s.Points {
			x, okx := c.X.Scale.forward(pt.X)
			if !okx {
				continue
			}
			if y, ok := c.Y.Scale.forward(pt.Y); ok {
				p.counts[i]++
				p.xe.add(x)
				p.ye.add(y)
			}
			lo, hi, ok := bandAt(c, s, j)
			// A band is drawn where two points in a row have one: alone,
			// it is not, and must not stretch the axis for nothing.
			_, _, prev := bandAt(c, s, j-1)
			_, _, next := bandAt(c, s, j+1)
			if ok && (prev || next) {
				p.xe.add(x)
				p.ye.add(lo)
				p.ye.add(hi)
			}
		}
		p.points += p.counts[i]
		if p.counts[i] > 0 {
			p.series++
		}
	}
	for _, s := range c.Shade {
		for _, v := range []float64{s.From, s.To} {
			if x, ok := c.X.Scale.forward(v); ok {
				p.xe.add(x)
			}
		}
	}
	for _, r := range c.Rules {
		if y, ok := c.Y.Scale.forward(r.Y); ok {
			p.ye.add(y)
		}
	}
	return p
}

// bandAt returns the band of series s at its point j in scale space, and
// whether it has one there that the axes can place.
func bandAt(c *Chart, s Series, j int) (lo, hi float64, ok bool) {
	if j < 0 || j >= len(s.Points) {
		return 0, 0, false
	}
	_, okx := c.X.Scale.forward(s.Points[j].X)
	lo, okl := c.Y.Scale.forward(at(s.Lo, j))
	hi, okh := c.Y.Scale.forward(at(s.Hi, j))
	return lo, hi, okx && okl && okh
}

// at returns v[i], or NaN past the end of v.
func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return nan
}

// layout places the plot area, leaving right pixels for a legend at the
// right, and resolves both axes against it.
func (p *plan) layout(right float64) {
	c := p.c
	top := 10.0
	if c.Title != "" {
		top += 22
	}
	bottom := 28.0
	if c.X.Label != "" {
		bottom += 18
	}
	if c.Note != "" {
		bottom += 16
	}
	y0, y1 := top, max(p.h-bottom, top+minPlot)
	p.y = fitAxis(c.Y, p.ye, y1, y0, false)

	left := 14.0 + tickLen
	for _, t := range p.y.ticks {
		left = max(left, textWidth(t.label, fontTick)+tickLen+10)
	}
	if p.y.title != "" {
		left += 20
	}
	x0 := left
	x1 := max(p.w-16-right, x0+minPlot)
	p.x = fitAxis(c.X, p.xe, x0, x1, true)
	p.area = rect{x0, y0, x1, y1}
}

// textWidth estimates the width of s in pixels at the given font size.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}
