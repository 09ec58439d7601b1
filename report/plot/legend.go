package plot

// Legend sizes in pixels.
const (
	legendRow     = 16
	legendSwatch  = 22
	legendPad     = 6
	legendMaxName = 40 // runes; longer names are cut with an ellipsis
)

// legend is the box naming the series.
type legend struct {
	entries    []legendEntry
	x, y, w, h float64
}

// legendEntry is one named series in the legend.
type legendEntry struct {
	name  string
	color string
	s     *Series
}

// add names a series in the legend, cut to legendMaxName runes.
func (l *legend) add(name, color string, s *Series) {
	name = cut(name, legendMaxName)
	l.entries = append(l.entries, legendEntry{name, color, s})
	l.w = max(l.w, textWidth(name, fontTick))
}

// size adds the padding and swatch to the widest name and sets the
// height, once every entry is in. It reports whether the legend has any.
func (l *legend) size() bool {
	if len(l.entries) == 0 {
		return false
	}
	l.w += 3*legendPad + legendSwatch
	l.h = 2*legendPad + float64(len(l.entries))*legendRow - 4
	return true
}

// placeLegend sizes the legend and puts it in the top-left or top-right
// corner of the plot area, whichever covers no data or labels. It reports
// whether the legend should go right of the plot area instead, which needs
// a new layout.
func (p *plan) placeLegend() bool {
	l := &p.leg
	*l = legend{}
	for i := range p.c.Series {
		s := &p.c.Series[i]
		if s.Name == "" || p.counts[i] == 0 {
			continue
		}
		l.add(s.Name, p.colors[i], s)
	}
	if !l.size() {
		return false
	}
	a := p.area
	aw, ah := a.x1-a.x0, a.y1-a.y0
	l.y = a.y0 + 8
	if l.w <= aw*0.6 && l.h <= ah*0.7 {
		for _, x := range []float64{a.x0 + 8, a.x1 - 8 - l.w} {
			if !p.covers(rect{x - 3, l.y - 3, x + l.w + 3, l.y + l.h + 3}) {
				l.x = x
				return false
			}
		}
	}
	if aw-l.w-legendGap >= max(240, aw*0.6) {
		return true
	}
	l.x = a.x0 + 8
	return false
}

// covers reports whether r would hide part of a series, band or label.
func (p *plan) covers(r rect) bool {
	for _, g := range p.geo {
		for _, l := range g.lines {
			if len(l) == 1 && r.inside(l[0]) {
				return true
			}
			for i := 1; i < len(l); i++ {
				if _, _, ok := clipSegment(l[i-1], l[i], r); ok {
					return true
				}
			}
		}
		for _, d := range g.dots {
			if r.inside(d) {
				return true
			}
		}
		for _, poly := range g.bands {
			for i := range poly {
				if _, _, ok := clipSegment(poly[i], poly[(i+1)%len(poly)], r); ok {
					return true
				}
			}
			if insidePolygon(pt{r.x0, r.y0}, poly) {
				return true
			}
		}
	}
	for _, b := range p.labelBoxes() {
		if b.x0 < r.x1 && r.x0 < b.x1 && b.y0 < r.y1 && r.y0 < b.y1 {
			return true
		}
	}
	return false
}

// writeLegend draws the legend, if any series is named.
func (p *plan) writeLegend(w *svgWriter) {
	l := p.leg
	if len(l.entries) == 0 {
		return
	}
	w.str(`<g class="legend">`).open("rect").num("x", l.x).num("y", l.y).num("width", l.w).num("height", l.h)
	w.str(` rx="3" fill="#fff" fill-opacity="0.85" stroke="#ccc"/>` + "\n")
	for i, e := range l.entries {
		x, y := l.x+legendPad, l.y+legendPad+float64(i)*legendRow+6
		sw := min(e.s.width(), 3)
		if len(e.s.Lo) > 0 && len(e.s.Hi) > 0 {
			w.open("rect").num("x", x).num("y", y-5).num("width", legendSwatch).str(` height="10"`)
			w.attr("fill", e.color).str(` fill-opacity="0.2"/>`)
		}
		w.open("path").attr("stroke", e.color).str(` fill="none" stroke-linecap="round" stroke-linejoin="round"`)
		if e.s.Dashed && e.s.Style != Markers {
			w.str(` stroke-dasharray="`).n(3 * sw).sp().n(2 * sw).str(`"`)
		}
		switch e.s.Style {
		case Markers:
			w.num("stroke-width", 2*sw).str(` d="M`).n(x + legendSwatch/2).sp().n(y).str(`h0"/>`)
		case Steps:
			w.num("stroke-width", sw).str(` d="M`).n(x).sp().n(y + 4).str(`h7v-8h8v8h7"/>`)
		default:
			w.num("stroke-width", sw).str(` d="M`).n(x).sp().n(y).str(`h22"/>`)
		}
		if e.s.Style == LineMarkers {
			w.open("circle").num("cx", x+legendSwatch/2).num("cy", y).num("r", sw+1.5)
			w.attr("fill", e.color).str(` stroke="#fff" stroke-width="0.8"/>`)
		}
		w.label(x+legendSwatch+legendPad, y+4, ` fill="#222"`, e.name)
	}
	w.str("</g>\n")
}
