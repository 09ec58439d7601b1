package plot

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/golden"
)

// parsed is what the tests read back from an svg.
type parsed struct {
	root    map[string]string // attributes of the root element
	classes map[string]int    // elements per class attribute value
	texts   []string          // character data of <text> elements
	ids     map[string]bool
	refs    []string // ids named in url(#...)
}

// parseSVG checks that s is one well-formed svg element with no NaN or Inf
// in it, and returns what the tests look at.
func parseSVG(t *testing.T, s string) parsed {
	t.Helper()
	for _, bad := range []string{"NaN", "Inf", "inf"} {
		if strings.Contains(s, bad) {
			t.Errorf("svg contains %q", bad)
		}
	}
	p := parsed{root: map[string]string{}, classes: map[string]int{}, ids: map[string]bool{}}
	d := xml.NewDecoder(strings.NewReader(s))
	depth, roots, inText := 0, 0, false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("svg is not well-formed XML: %v\n%s", err, s)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root element is %v", tok.Name)
				}
				for _, a := range tok.Attr {
					p.root[a.Name.Local] = a.Value
				}
			}
			depth++
			inText = tok.Name.Local == "text"
			for _, a := range tok.Attr {
				switch a.Name.Local {
				case "class":
					p.classes[a.Value]++
				case "id":
					p.ids[a.Value] = true
				}
				if i := strings.Index(a.Value, "url(#"); i >= 0 {
					p.refs = append(p.refs, strings.TrimSuffix(a.Value[i+5:], ")"))
				}
			}
		case xml.EndElement:
			depth--
			inText = false
		case xml.CharData:
			if inText {
				p.texts = append(p.texts, string(tok))
			}
		}
	}
	if roots != 1 {
		t.Errorf("%d root elements, want 1", roots)
	}
	for _, r := range p.refs {
		if !p.ids[r] {
			t.Errorf("url(#%s) names no element", r)
		}
	}
	return p
}

// counts returns the data-series and data-points attributes.
func (p parsed) counts(t *testing.T) (series, points int) {
	t.Helper()
	s, err1 := strconv.Atoi(p.root["data-series"])
	n, err2 := strconv.Atoi(p.root["data-points"])
	if err1 != nil || err2 != nil {
		t.Fatalf("data-series=%q data-points=%q", p.root["data-series"], p.root["data-points"])
	}
	return s, n
}

// checkGolden compares got with testdata/name (see golden.Check).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got))
}

// wave returns n points of a smooth positive signal over x in [0, span).
func wave(n int, span, base, amp, phase float64) []Point {
	pts := make([]Point, n)
	for i := range pts {
		x := span * float64(i) / float64(n)
		pts[i] = Point{x, base + amp*math.Sin(x/span*7+phase)}
	}
	return pts
}
