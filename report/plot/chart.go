package plot

import (
	"bytes"
	"io"
)

// Point is one observation. A NaN (or infinite) X or Y breaks a line: the
// line resumes after the gap.
type Point struct{ X, Y float64 }

// Style says how a series is drawn. The zero value is Line.
type Style int

const (
	// Line draws a polyline through the points.
	Line Style = iota
	// LineMarkers draws a polyline with a small marker at each point.
	LineMarkers
	// Markers draws a scatter of small dots, cheap enough for thousands of
	// points.
	Markers
	// Steps draws a step line: Y[i] holds from X[i] until X[i+1], as for a
	// histogram outline; add a last point to close the last step.
	Steps
)

// Series is one set of points drawn in one colour.
type Series struct {
	// Name is the legend entry; "" keeps the series out of the legend.
	Name   string
	Points []Point
	// Lo and Hi, when set, are a band drawn as a translucent area between
	// Lo[i] and Hi[i] at Points[i].X, in the series colour. A NaN breaks the
	// band; a missing entry counts as NaN.
	Lo, Hi []float64
	Style  Style
	Dashed bool
	// Color indexes Palette (modulo its length); -1, or any negative value,
	// picks the next colour no other series uses. The zero value is the
	// first colour.
	Color int
	// Width is the stroke width in pixels (the dot diameter for Markers is
	// twice it); 0 means 1.5.
	Width float64
	// Class, when set, is a class name the series' path carries besides
	// "series", for a page's scripts and checks to find it by.
	Class string
}

// Span is a shaded x-range, such as a warm-up, labelled at its top.
type Span struct {
	From, To float64
	Label    string
}

// Rule is a horizontal reference line, such as an SLO or a CPU budget,
// labelled at its right end.
type Rule struct {
	Y     float64
	Label string
}

// Chart is one chart. Its zero value draws an empty 640×360 chart saying
// "no data".
type Chart struct {
	// ID is the svg element's id attribute; optional. When set it also
	// prefixes the ids of the chart's clip path and markers, so it should be
	// unique in the page; when empty those ids are derived from the content.
	ID string
	// Title is drawn above the plot area and is the chart's accessible name.
	Title string
	X, Y  Axis
	// Series are drawn in order, later ones on top.
	Series []Series
	// Shade are x-ranges drawn behind the data. Their ends count towards an
	// automatic X range.
	Shade []Span
	// Rules are horizontal lines over the data. Their values count towards
	// an automatic Y range.
	Rules []Rule
	// Width and Height are the size in pixels; 0 means 640×360.
	Width, Height int
	// Note is an optional line of small text under the chart.
	Note string
}

// WriteSVG writes c as one <svg> element with class "plot", xmlns, viewBox,
// width, height, role="img" and aria-label set. A nil Chart draws as an
// empty one.
func (c *Chart) WriteSVG(w io.Writer) error { return writeSVG(w, c.render) }

// SVG returns what WriteSVG writes. Text in it is escaped, so an
// html/template caller may wrap it in template.HTML.
func (c *Chart) SVG() string { return svgString(c.render) }

// render draws c into b.
func (c *Chart) render(b *bytes.Buffer) {
	if c == nil {
		c = &Chart{}
	}
	p := newPlan(c)
	p.layout(0)
	p.build()
	if p.placeLegend() {
		p.layout(p.leg.w + legendGap)
		p.build()
		p.leg.x, p.leg.y = p.area.x1+legendGap, p.area.y0
	}
	p.write(b)
}
