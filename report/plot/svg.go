package plot

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strconv"
)

// writeSVG writes what render draws to w, in one Write.
func writeSVG(w io.Writer, render func(*bytes.Buffer)) error {
	var b bytes.Buffer
	render(&b)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing svg: %w", err)
	}
	return nil
}

// svgString returns what render draws.
func svgString(render func(*bytes.Buffer)) string {
	var b bytes.Buffer
	render(&b)
	return b.String()
}

// svgWriter appends SVG to a buffer. Its methods return the writer so that
// an element's attributes chain.
type svgWriter struct{ b *bytes.Buffer }

// str writes s as it is.
func (w *svgWriter) str(s string) *svgWriter {
	w.b.WriteString(s)
	return w
}

// sp writes a space.
func (w *svgWriter) sp() *svgWriter {
	w.b.WriteByte(' ')
	return w
}

// n writes v with at most one decimal.
func (w *svgWriter) n(v float64) *svgWriter {
	w.b.Write(appendNum(w.b.AvailableBuffer(), v))
	return w
}

// open starts an element: "<name".
func (w *svgWriter) open(name string) *svgWriter {
	return w.str("<").str(name)
}

// attr writes the attribute name="value", escaping value.
func (w *svgWriter) attr(name, value string) *svgWriter {
	w.str(" ").str(name).str(`="`).text(value)
	return w.str(`"`)
}

// num writes the attribute name="v" with at most one decimal.
func (w *svgWriter) num(name string, v float64) *svgWriter {
	return w.str(" ").str(name).str(`="`).n(v).str(`"`)
}

// text writes s escaped for XML text or attribute values; characters XML
// cannot hold become U+FFFD.
func (w *svgWriter) text(s string) *svgWriter {
	_ = xml.EscapeText(w.b, []byte(s)) // a bytes.Buffer does not fail
	return w
}

// label writes a <text> element at x, y with the given extra attributes
// (written as they are) and escaped content s.
func (w *svgWriter) label(x, y float64, attrs, s string) {
	w.open("text").num("x", x).num("y", y).str(attrs).str(">").text(s).str("</text>\n")
}

// appendNum appends v rounded to one decimal, without trailing zeros. It
// never writes NaN or Inf: those, which callers never pass, become 0.
func appendNum(b []byte, v float64) []byte {
	r := math.Round(v*10) / 10
	if r == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		r = 0
	}
	return strconv.AppendFloat(b, r, 'f', -1, 64)
}

// itoa formats i in decimal.
// svgOpen writes a plot's <svg> element, sized w×h and labelled by title
// ("chart" without one), with the data-series and data-points counts that
// tests and the browser check read, and its <title>.
func (w *svgWriter) svgOpen(title, id string, width, height float64, series, points int) {
	name := title
	if name == "" {
		name = "chart"
	}
	w.open("svg").str(` xmlns="http://www.w3.org/2000/svg" class="plot"`)
	if id != "" {
		w.attr("id", id)
	}
	w.num("width", width).num("height", height).str(` viewBox="0 0 `).n(width).sp().n(height).str(`"`)
	w.str(` role="img"`).attr("aria-label", name)
	w.str(` data-series="` + itoa(series) + `" data-points="` + itoa(points) + `"`)
	w.str(` font-family="system-ui, sans-serif" font-size="11">` + "\n")
	if title != "" {
		w.str("<title>").text(title).str("</title>\n")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// idPrefix returns the prefix of the ids inside c's svg element: its ID
// made safe for url(#...), or a hash of its content, so that two charts in
// one page share ids only if they draw the same.
func idPrefix(c *Chart) string {
	if c.ID != "" {
		b := []byte(c.ID)
		for i, ch := range b {
			if !('a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || ch == '-' || ch == '_') {
				b[i] = '_'
			}
		}
		return string(b)
	}
	h := fnv.New64a()
	var buf []byte
	f := func(vs ...float64) {
		for _, v := range vs {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
	}
	s := func(ss ...string) {
		for _, x := range ss {
			buf = append(append(buf, x...), 0)
		}
	}
	s(c.Title, c.Note, c.X.Label, c.Y.Label)
	f(float64(c.Width), float64(c.Height))
	for _, a := range []Axis{c.X, c.Y} {
		f(float64(a.Scale), float64(a.Unit), ptr(a.Min), ptr(a.Max), b2f(a.ZeroBased))
	}
	for _, se := range c.Series {
		s(se.Name, se.Class)
		f(float64(se.Style), float64(se.Color), se.Width, b2f(se.Dashed))
		for _, q := range se.Points {
			f(q.X, q.Y)
		}
		f(se.Lo...)
		f(se.Hi...)
		h.Write(buf)
		buf = buf[:0]
	}
	for _, sp := range c.Shade {
		f(sp.From, sp.To)
	}
	for _, r := range c.Rules {
		f(r.Y)
	}
	h.Write(buf)
	return "plot" + strconv.FormatUint(h.Sum64(), 16)
}

// ptr returns *v, or NaN for nil.
func ptr(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// b2f returns 1 for true.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
