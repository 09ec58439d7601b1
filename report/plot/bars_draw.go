package plot

import "bytes"

// barGeo is one bar, or one "n/a" where a bar is missing, in pixels.
type barGeo struct {
	i, j      int     // series and row
	na        bool    // no bar: the label says n/a
	x0, x1    float64 // the bar's ends, x0 ≤ x1
	y, h      float64 // its top and thickness
	whisker   bool    // a whisker from w0 to w1 crosses the bar
	w0, w1    float64 // whisker ends
	label     string  // the value, or "n/a"
	lx        float64 // where the label starts, or ends if anchorEnd
	anchorEnd bool
	inside    bool // the label is on the bar, with a halo
}

// labelInset is the space between a label inside a bar and the bar's end.
const labelInset = 4

// minBar is the least width of a bar whose value is not zero: 3 px and more
// where a page draws the plot at three quarters of its size or more.
const minBar = 4

// boxes returns the rectangles g covers: label, bar and whisker.
func (g barGeo) boxes() []rect {
	mid, lw := g.y+g.h/2, textWidth(g.label, fontSmall)
	lb := rect{g.lx, mid - 7, g.lx + lw, mid + 5}
	if g.anchorEnd {
		lb.x0, lb.x1 = g.lx-lw, g.lx
	}
	out := []rect{lb}
	if !g.na {
		out = append(out, rect{g.x0, g.y, g.x1, g.y + g.h})
	}
	if g.whisker {
		out = append(out, rect{g.w0, mid - 4, g.w1, mid + 4})
	}
	return out
}

// bars returns the bars and "n/a"s of the current layout, row by row, in
// series order within a row. Series without any bar get no slot.
func (p *barPlan) bars() []barGeo {
	c, a := p.b, p.area
	n := float64(max(1, p.series))
	sh := min(barSlot, (p.rowH-min(barRowGap, p.rowH*0.3))/n) // slot height
	th := sh * barThick / barSlot
	base := p.x.lo // bars start at 0 on a linear axis, else at its left end
	if sc := c.Value.Scale; sc != Log && sc != Percentile {
		base = min(max(0, p.x.lo), p.x.hi)
	}
	px := func(s float64) float64 { return p.x.pos(min(max(s, p.x.lo), p.x.hi)) }
	bx := px(base)
	var out []barGeo
	for j := range c.Categories {
		top := a.y0 + (float64(j)+0.5)*p.rowH - n*sh/2
		for i, s := range c.Series {
			if p.slot[i] < 0 {
				continue
			}
			g := barGeo{i: i, j: j, y: top + float64(p.slot[i])*sh + (sh-th)/2, h: th, x0: bx, x1: bx}
			v, ok := c.Value.Scale.forward(at(s.Values, j))
			if !ok {
				g.na, g.label = true, "n/a"
				p.placeLabel(&g, false)
				out = append(out, g)
				continue
			}
			e := px(v)
			g.x0, g.x1 = min(bx, e), max(bx, e)
			// Keep every bar visible: a zero one as a hairline, any other
			// (a small value beside large ones, or one clipped) at least
			// minBar wide, so that it does not read as zero.
			if least := map[bool]float64{true: 1, false: minBar}[v == base]; g.x1-g.x0 < least {
				if v < base {
					g.x0 = g.x1 - least
				} else {
					g.x1 = g.x0 + least
				}
			}
			if lo, hi, ok := p.whisker(i, j); ok {
				g.whisker, g.w0, g.w1 = true, px(lo), px(hi)
			}
			g.label = c.Value.Unit.Format(s.Values[j])
			if j < len(s.Marks) && s.Marks[j] {
				g.label += " *"
			}
			p.placeLabel(&g, v < base)
			out = append(out, g)
		}
	}
	return out
}

// placeLabel puts the label of g past the end of its bar and whisker, on
// the left for a bar going left, as long as the label stays in the chart.
// A bar with a whisker long enough to hold its label holds it, at its end:
// past the whisker, the label of a short bar would sit far from it.
func (p *barPlan) placeLabel(g *barGeo, left bool) {
	lo, hi := g.x0, g.x1
	lw := textWidth(g.label, fontSmall)
	if g.whisker && !g.na && hi-lo >= lw+2*labelInset {
		g.inside = true
		if left {
			g.lx = lo + labelInset
		} else {
			g.lx, g.anchorEnd = hi-labelInset, true
		}
		return
	}
	if g.whisker {
		lo, hi = min(lo, g.w0), max(hi, g.w1)
	}
	if left && lo-4-lw >= p.area.x0 {
		g.lx, g.anchorEnd = lo-4, true
		return
	}
	g.lx = hi + 4
	if g.lx+lw > p.w-1 {
		g.lx, g.anchorEnd = p.w-1, true
	}
}

// draw writes the laid-out chart into b.
func (p *barPlan) draw(b *bytes.Buffer) {
	c, a, w := p.b, p.area, &svgWriter{b}
	w.svgOpen(c.Title, c.ID, p.w, p.h, p.series, p.points)
	w.str(`<rect width="100%" height="100%" fill="#fff"/>` + "\n")
	p.writeGrid(w)
	if p.x.zero {
		w.str(`<path class="zero" stroke="#888" d="M`).n(p.x.pos(0)).sp().n(a.y0).str("V").n(a.y1).str("\"/>\n")
	}
	geo, k := p.bars(), 0
	for j, cat := range c.Categories {
		w.str(`<g class="row"><title>`).text(cat).str("</title>\n")
		w.label(a.x0-8, a.y0+(float64(j)+0.5)*p.rowH+4, ` class="category" text-anchor="end" fill="#222"`, p.labels[j])
		for ; k < len(geo) && geo[k].j == j; k++ {
			p.writeBar(w, geo[k])
		}
		w.str("</g>\n")
	}
	p.writeAxes(w)
	p.writeEnd(w, c.Title, c.Note)
}

// writeBar writes one bar with its tooltip, whisker and value label, or
// the "n/a" standing in for it.
func (p *barPlan) writeBar(w *svgWriter, g barGeo) {
	c, s := p.b, &p.b.Series[g.i]
	attrs := ` class="value" font-size="10" fill="#333"`
	if g.na {
		attrs = ` class="na" font-size="10" fill="#999"`
	}
	if g.anchorEnd {
		attrs += ` text-anchor="end"`
	}
	if g.inside {
		attrs += ` stroke="#fff" stroke-width="3" paint-order="stroke"`
	}
	mid := g.y + g.h/2
	if !g.na {
		w.open("rect").str(` class="series"`)
		if s.Name != "" {
			w.attr("data-name", s.Name)
		}
		w.num("x", g.x0).num("y", g.y).num("width", g.x1-g.x0).num("height", g.h).attr("fill", p.colors[g.i])
		tip := c.Categories[g.j] + ": "
		if s.Name != "" {
			tip += s.Name + " "
		}
		tip += g.label
		if g.whisker {
			lo, hi := at(s.Lo, g.j), at(s.Hi, g.j)
			tip += " (" + c.Value.Unit.Format(min(lo, hi)) + "–" + c.Value.Unit.Format(max(lo, hi)) + ")"
		}
		w.str("><title>").text(tip).str("</title></rect>\n")
	}
	if g.whisker {
		end := min(g.h/2, 4)
		w.str(`<path class="band" stroke="#222" stroke-width="1.2" fill="none" d="M`).n(g.w0).sp().n(mid).str("H").n(g.w1)
		for _, x := range []float64{g.w0, g.w1} {
			w.str("M").n(x).sp().n(mid - end).str("V").n(mid + end)
		}
		w.str("\"/>\n")
	}
	w.label(g.lx, mid+3.5, attrs, g.label)
}
