package plot

// pt is a point in scale space or in pixels.
type pt struct{ x, y float64 }

// inside reports whether q lies in r.
func (r rect) inside(q pt) bool {
	return q.x >= r.x0 && q.x <= r.x1 && q.y >= r.y0 && q.y <= r.y1
}

// clipSegment clips the segment a–b to r (Liang–Barsky), returning the
// parameters t0 ≤ t1 of the part inside, or ok false if none is.
func clipSegment(a, b pt, r rect) (t0, t1 float64, ok bool) {
	t0, t1 = 0, 1
	dx, dy := b.x-a.x, b.y-a.y
	for _, e := range [4][2]float64{{-dx, a.x - r.x0}, {dx, r.x1 - a.x}, {-dy, a.y - r.y0}, {dy, r.y1 - a.y}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return 0, 0, false
			}
			continue
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return 0, 0, false
			}
			t0 = max(t0, t)
		} else {
			if t < t0 {
				return 0, 0, false
			}
			t1 = min(t1, t)
		}
	}
	return t0, t1, true
}

// lerp returns the point at t along a–b, exactly a or b at the ends.
func lerp(a, b pt, t float64) pt {
	switch t {
	case 0:
		return a
	case 1:
		return b
	}
	return pt{a.x + t*(b.x-a.x), a.y + t*(b.y-a.y)}
}

// clipPolyline returns the parts of the polyline run inside r. A lone point
// inside r is a part of its own.
func clipPolyline(run []pt, r rect) [][]pt {
	if len(run) == 1 {
		if r.inside(run[0]) {
			return [][]pt{{run[0]}}
		}
		return nil
	}
	var out [][]pt
	var cur []pt
	for i := 1; i < len(run); i++ {
		a, b := run[i-1], run[i]
		t0, t1, ok := clipSegment(a, b, r)
		if !ok {
			if cur != nil {
				out, cur = append(out, cur), nil
			}
			continue
		}
		if cur == nil || t0 > 0 {
			if cur != nil {
				out = append(out, cur)
			}
			cur = []pt{lerp(a, b, t0)}
		}
		cur = append(cur, lerp(a, b, t1))
		if t1 < 1 {
			out, cur = append(out, cur), nil
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// clipPolygon clips the polygon poly to r (Sutherland–Hodgman). The result
// may have edges along r's border, which fill the same.
func clipPolygon(poly []pt, r rect) []pt {
	type edge struct {
		vertical bool    // the border is x = c (else y = c)
		c        float64 // where the border is
		above    bool    // inside is ≥ c (else ≤ c)
	}
	for _, e := range []edge{{true, r.x0, true}, {true, r.x1, false}, {false, r.y0, true}, {false, r.y1, false}} {
		in := func(q pt) bool {
			v := q.y
			if e.vertical {
				v = q.x
			}
			if e.above {
				return v >= e.c
			}
			return v <= e.c
		}
		cross := func(a, b pt) pt {
			if e.vertical {
				return pt{e.c, a.y + (e.c-a.x)/(b.x-a.x)*(b.y-a.y)}
			}
			return pt{a.x + (e.c-a.y)/(b.y-a.y)*(b.x-a.x), e.c}
		}
		src := poly
		poly = nil
		for i, q := range src {
			prev := src[(i+len(src)-1)%len(src)]
			switch {
			case in(q):
				if !in(prev) {
					poly = append(poly, cross(prev, q))
				}
				poly = append(poly, q)
			case in(prev):
				poly = append(poly, cross(prev, q))
			}
		}
		if len(poly) == 0 {
			return nil
		}
	}
	return poly
}

// insidePolygon reports whether q lies inside poly (even-odd rule).
func insidePolygon(q pt, poly []pt) bool {
	in := false
	for i, a := range poly {
		b := poly[(i+len(poly)-1)%len(poly)]
		if (a.y > q.y) != (b.y > q.y) && q.x < a.x+(q.y-a.y)/(b.y-a.y)*(b.x-a.x) {
			in = !in
		}
	}
	return in
}
