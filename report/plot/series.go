package plot

import "math"

// geometry is a series in pixels, clipped to a little beyond the plot area
// (the clip path trims the rest), so coordinates stay small.
type geometry struct {
	lines [][]pt // polylines
	dots  []pt   // markers of a Markers series, inside the plot area
	bands [][]pt // band polygons
}

// build computes the geometry of every series for the current layout.
func (p *plan) build() {
	x, y := &p.x, &p.y
	xs, ys := x.hi-x.lo, y.hi-y.lo
	box := rect{x.lo - xs, y.lo - ys, x.hi + xs, y.hi + ys}
	p.geo = make([]geometry, len(p.c.Series))
	for i, s := range p.c.Series {
		p.geo[i] = p.geometry(s, box)
	}
}

// geometry computes the pixels of s, clipping in scale space to box.
func (p *plan) geometry(s Series, box rect) geometry {
	var g geometry
	fx, fy := p.c.X.Scale.forward, p.c.Y.Scale.forward
	var run []pt
	flush := func() {
		if s.Style == Steps {
			run = stepped(run)
		}
		for _, part := range clipPolyline(run, box) {
			g.lines = append(g.lines, p.pixels(part))
		}
		run = run[:0]
	}
	for _, q := range s.Points {
		x, okx := fx(q.X)
		y, oky := fy(q.Y)
		switch {
		case !okx || !oky:
			flush()
		case s.Style != Markers:
			run = append(run, pt{x, y})
		case p.x.contains(x) && p.y.contains(y):
			g.dots = append(g.dots, pt{p.x.pos(x), p.y.pos(y)})
		}
	}
	flush()

	var lo, hi []pt
	flushBand := func() {
		if len(hi) >= 2 {
			if s.Style == Steps {
				lo, hi = stepped(lo), stepped(hi)
			}
			poly := append([]pt(nil), hi...)
			for i := len(lo) - 1; i >= 0; i-- {
				poly = append(poly, lo[i])
			}
			if poly = clipPolygon(poly, box); len(poly) >= 3 {
				g.bands = append(g.bands, p.pixels(poly))
			}
		}
		lo, hi = lo[:0], hi[:0]
	}
	for j, q := range s.Points {
		if j >= len(s.Lo) || j >= len(s.Hi) {
			break
		}
		x, okx := fx(q.X)
		l, okl := fy(s.Lo[j])
		h, okh := fy(s.Hi[j])
		if !okx || !okl || !okh {
			flushBand()
			continue
		}
		lo, hi = append(lo, pt{x, l}), append(hi, pt{x, h})
	}
	flushBand()
	return g
}

// stepped turns points into the corners of a step line that holds each Y
// until the next X.
func stepped(run []pt) []pt {
	if len(run) < 2 {
		return run
	}
	out := make([]pt, 0, 2*len(run))
	for i, q := range run {
		out = append(out, q)
		if i+1 < len(run) {
			out = append(out, pt{run[i+1].x, q.y})
		}
	}
	return out
}

// pixels maps scale-space points to pixels.
func (p *plan) pixels(qs []pt) []pt {
	out := make([]pt, len(qs))
	for i, q := range qs {
		out[i] = pt{p.x.pos(q.x), p.y.pos(q.y)}
	}
	return out
}

// width returns the stroke width of s in pixels.
func (s *Series) width() float64 {
	if !(s.Width > 0) {
		return 1.5
	}
	return min(s.Width, 20)
}

// markerID returns the id of the marker of series i.
func (p *plan) markerID(i int) string {
	return p.prefix + "-m" + itoa(i)
}

// writeMarkers writes the marker definitions of LineMarkers series.
func (p *plan) writeMarkers(w *svgWriter) {
	for i, s := range p.c.Series {
		if s.Style != LineMarkers || p.counts[i] == 0 {
			continue
		}
		r := s.width() + 1.5
		w.open("marker").attr("id", p.markerID(i)).num("markerWidth", 2*r+2).num("markerHeight", 2*r+2)
		w.str(` viewBox="`).n(-r - 1).sp().n(-r - 1).sp().n(2*r + 2).sp().n(2*r + 2).str(`" markerUnits="userSpaceOnUse">`)
		w.open("circle").num("r", r).attr("fill", p.colors[i]).str(` stroke="#fff" stroke-width="0.8"/></marker>`)
	}
}

// writeBands writes the band of each series that has one.
func (p *plan) writeBands(w *svgWriter) {
	for i, g := range p.geo {
		if len(g.bands) == 0 {
			continue
		}
		w.open("path").str(` class="band"`).attr("fill", p.colors[i]).str(` fill-opacity="0.2" d="`)
		for _, poly := range g.bands {
			w.path(poly)
			w.str("Z")
		}
		w.str("\"/>\n")
	}
}

// writeSeries writes one path per series with a placeable point.
func (p *plan) writeSeries(w *svgWriter) {
	for i, s := range p.c.Series {
		if p.counts[i] == 0 {
			continue
		}
		g := p.geo[i]
		sw := s.width()
		w.open("path").str(` class="series`)
		if s.Class != "" {
			w.str(" ").text(s.Class)
		}
		w.str(`"`)
		if s.Name != "" {
			w.attr("data-name", s.Name)
		}
		w.str(` fill="none"`).attr("stroke", p.colors[i])
		if s.Style == Markers {
			sw *= 2
		}
		w.num("stroke-width", sw).str(` stroke-linecap="round" stroke-linejoin="round"`)
		if s.Dashed {
			w.str(` stroke-dasharray="`).n(4 * sw).sp().n(3 * sw).str(`"`)
		}
		if s.Style == LineMarkers {
			u := "url(#" + p.markerID(i) + ")"
			w.attr("marker-start", u).attr("marker-mid", u).attr("marker-end", u)
		}
		w.str(` d="`)
		for _, d := range g.dots {
			w.str("M").n(d.x).sp().n(d.y).str("h0")
		}
		for _, l := range g.lines {
			w.path(l)
		}
		w.str("\"/>\n")
	}
}

// path writes the path data of a polyline, dropping points that round to
// the one before; a single point becomes a dot.
func (w *svgWriter) path(l []pt) {
	var lx, ly float64
	n := 0
	for _, q := range l {
		rx, ry := math.Round(q.x*10), math.Round(q.y*10)
		if n > 0 && rx == lx && ry == ly {
			continue
		}
		if n == 0 {
			w.str("M")
		} else {
			w.str("L")
		}
		w.n(q.x).sp().n(q.y)
		lx, ly = rx, ry
		n++
	}
	if n == 1 {
		w.str("h0")
	}
}
