package plot

import (
	"bytes"
	"math"
)

// write draws the laid-out chart into b.
func (p *plan) write(b *bytes.Buffer) {
	c, a, w := p.c, p.area, &svgWriter{b}
	w.svgOpen(c.Title, c.ID, p.w, p.h, p.series, p.points)

	clip := p.prefix + "-clip"
	w.str("<defs>").open("clipPath").attr("id", clip).str(">").open("rect")
	w.num("x", a.x0-2).num("y", a.y0-2).num("width", a.x1-a.x0+4).num("height", a.y1-a.y0+4).str("/></clipPath>")
	p.writeMarkers(w)
	w.str("</defs>\n")
	w.str(`<rect width="100%" height="100%" fill="#fff"/>` + "\n")

	spans, rules := p.spanBoxes(), p.ruleLines()
	for _, s := range spans {
		w.open("rect").str(` class="shade"`).num("x", s.x0).num("y", a.y0).num("width", s.x1-s.x0).num("height", a.y1-a.y0)
		w.str(` fill="#000" fill-opacity="0.07"/>` + "\n")
	}
	p.writeGrid(w)
	w.str(`<g clip-path="url(#` + clip + `)">` + "\n")
	p.writeBands(w)
	if p.y.zero {
		w.str(`<path class="zero" stroke="#888" d="M`).n(a.x0).sp().n(p.y.pos(0)).str("H").n(a.x1).str("\"/>\n")
	}
	if p.x.zero {
		w.str(`<path class="zero" stroke="#888" d="M`).n(p.x.pos(0)).sp().n(a.y0).str("V").n(a.y1).str("\"/>\n")
	}
	p.writeSeries(w)
	for _, r := range rules {
		w.str(`<path class="rule" stroke="#333" stroke-dasharray="5 4" d="M`).n(a.x0).sp().n(r.y).str("H").n(a.x1).str("\"/>\n")
	}
	w.str("</g>\n")

	p.writeAxes(w)
	for _, s := range spans {
		w.label(s.lx, s.ly, ` class="shade-label" text-anchor="middle" font-size="10" fill="#555"`, s.label)
	}
	for _, r := range rules {
		w.label(r.lx, r.ly, ` class="rule-label" text-anchor="end" font-size="10" fill="#333"`, r.label)
	}
	p.writeEnd(w, c.Title, c.Note)
}

// writeEnd draws the legend, the title, the note and, when nothing could
// be placed, "no data" over the plot area, and closes the SVG.
func (p *plan) writeEnd(w *svgWriter, title, note string) {
	a := p.area
	p.writeLegend(w)
	if title != "" {
		w.label(p.w/2, 21, ` class="title" text-anchor="middle" font-size="14" font-weight="600" fill="#222"`, title)
	}
	if note != "" {
		w.label(a.x0, p.h-6, ` class="note" font-size="10" fill="#555"`, note)
	}
	if p.points == 0 {
		w.label((a.x0+a.x1)/2, (a.y0+a.y1)/2+5, ` class="nodata" text-anchor="middle" font-size="13" fill="#888"`, "no data")
	}
	w.str("</svg>\n")
}

// writeGrid draws light lines at the ticks.
func (p *plan) writeGrid(w *svgWriter) {
	a := p.area
	w.str(`<path class="grid" stroke="#e6e6e6" d="`)
	for _, t := range p.y.ticks {
		w.str("M").n(a.x0).sp().n(p.y.pos(t.s)).str("H").n(a.x1)
	}
	for _, t := range p.x.ticks {
		w.str("M").n(p.x.pos(t.s)).sp().n(a.y0).str("V").n(a.y1)
	}
	w.str("\"/>\n")
}

// writeAxes draws the axis lines, tick marks, tick labels and axis titles.
func (p *plan) writeAxes(w *svgWriter) {
	a := p.area
	w.str(`<path class="axis" stroke="#666" fill="none" d="M`).n(a.x0).sp().n(a.y0).str("V").n(a.y1).str("H").n(a.x1)
	for _, t := range p.y.ticks {
		w.str("M").n(a.x0).sp().n(p.y.pos(t.s)).str("h-4")
	}
	for _, t := range p.x.ticks {
		w.str("M").n(p.x.pos(t.s)).sp().n(a.y1).str("v4")
	}
	w.str("\"/>\n")
	w.str(`<g class="ticks" fill="#444" text-anchor="end">` + "\n")
	for _, t := range p.y.ticks {
		w.label(a.x0-tickLen-3, p.y.pos(t.s)+4, "", t.label)
	}
	w.str("</g>\n" + `<g class="ticks" fill="#444" text-anchor="middle">` + "\n")
	for _, t := range p.x.ticks {
		x, attrs := p.x.pos(t.s), ""
		if half := textWidth(t.label, fontTick) / 2; x+half > p.w-2 {
			x, attrs = p.w-2, ` text-anchor="end"`
		}
		w.label(x, a.y1+tickLen+12, attrs, t.label)
	}
	w.str("</g>\n")
	const attrs = ` class="axis-label" text-anchor="middle" font-size="12" fill="#222"`
	if p.x.title != "" {
		w.label((a.x0+a.x1)/2, a.y1+36, attrs, p.x.title)
	}
	if p.y.title != "" {
		w.open("text").str(` transform="translate(14 `).n((a.y0 + a.y1) / 2).str(`) rotate(-90)"`).str(attrs)
		w.str(">").text(p.y.title).str("</text>\n")
	}
}

// spanBox is a shaded x-range in pixels, with where its label goes.
type spanBox struct {
	x0, x1, lx, ly float64
	label          string
}

// spanBoxes returns the visible parts of the chart's spans.
func (p *plan) spanBoxes() []spanBox {
	var out []spanBox
	for _, s := range p.c.Shade {
		from, ok1 := p.spanEnd(s.From)
		to, ok2 := p.spanEnd(s.To)
		if !ok1 || !ok2 {
			continue
		}
		from, to = min(from, to), max(from, to)
		if to < p.x.lo || from > p.x.hi {
			continue
		}
		x0, x1 := p.x.pos(max(from, p.x.lo)), p.x.pos(min(to, p.x.hi))
		if x1-x0 < 1 {
			x0, x1 = (x0+x1)/2-0.5, (x0+x1)/2+0.5
		}
		out = append(out, spanBox{x0, x1, (x0 + x1) / 2, p.area.y0 + 12, s.Label})
	}
	return out
}

// spanEnd returns the x scale position of a span's end: a value the scale
// cannot show but lies past one end of it counts as that end.
func (p *plan) spanEnd(v float64) (float64, bool) {
	if s, ok := p.c.X.Scale.forward(v); ok {
		return s, true
	}
	switch {
	case math.IsNaN(v):
		return 0, false
	case v > 0:
		return p.x.hi, true
	}
	return p.x.lo, true
}

// ruleLine is a visible rule in pixels, with where its label goes.
type ruleLine struct {
	y, lx, ly float64
	label     string
}

// ruleLines returns the rules within the Y range.
func (p *plan) ruleLines() []ruleLine {
	var out []ruleLine
	for _, r := range p.c.Rules {
		s, ok := p.c.Y.Scale.forward(r.Y)
		if !ok || !p.y.contains(s) {
			continue
		}
		y := p.y.pos(s)
		ly := y - 4
		if ly-10 < p.area.y0 {
			ly = y + 12
		}
		out = append(out, ruleLine{y, p.area.x1 - 4, ly, r.Label})
	}
	return out
}

// labelBoxes returns the boxes of the span and rule labels, which the
// legend should not cover.
func (p *plan) labelBoxes() []rect {
	var out []rect
	for _, s := range p.spanBoxes() {
		if s.label != "" {
			hw := textWidth(s.label, fontSmall) / 2
			out = append(out, rect{s.lx - hw, s.ly - 10, s.lx + hw, s.ly + 2})
		}
	}
	for _, r := range p.ruleLines() {
		if r.label != "" {
			out = append(out, rect{r.lx - textWidth(r.label, fontSmall), r.ly - 10, r.lx, r.ly + 2})
		}
	}
	return out
}
