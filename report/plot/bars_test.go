package plot

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

const longHop = "github.com/latlab/latlab/graph.(*Node).serveHTTP → github.com/latlab/latlab/graph.(*Node).call"

// hopBars is a representative bar chart: the per-hop breakdown of two
// variants, p50 bars with p90–p99 whiskers, a missing value and a label too
// long to draw whole.
func hopBars() *Bars {
	return &Bars{
		ID:         "hops",
		Title:      "Per-hop latency <baseline & sidecar>",
		Categories: []string{"client → gateway", "gateway → root, network", "root: handler", longHop},
		Series: []BarSeries{
			{Name: "baseline", Values: []float64{31e-6, 120e-6, 2.1e-3, 40e-6},
				Lo: []float64{40e-6, 180e-6, 2.9e-3, nan}, Hi: []float64{75e-6, 410e-6, 4.2e-3, nan}, Color: -1},
			{Name: "sidecar", Values: []float64{52e-6, 390e-6, 2.2e-3, nan},
				Lo: []float64{70e-6, 520e-6, 3.1e-3}, Hi: []float64{130e-6, 1.1e-3, 4.6e-3}, Color: -1},
		},
		Value: Axis{Label: "p50 latency", Unit: Seconds, ZeroBased: true},
		Note:  "whiskers: p90 to p99",
	}
}

func TestBarsGolden(t *testing.T) {
	got := hopBars().SVG()
	parseSVG(t, got)
	checkGolden(t, "bars.svg", got)
}

func TestBarsRobust(t *testing.T) {
	inf := math.Inf(1)
	one := []string{"a"}
	tests := []struct {
		name               string
		c                  *Bars
		series, points, na int
	}{
		{"nil", nil, 0, 0, 0},
		{"zero", &Bars{}, 0, 0, 0},
		{"categories without series", &Bars{Categories: []string{"a", "b"}}, 0, 0, 0},
		{"series without categories", &Bars{Series: []BarSeries{{Name: "a", Values: []float64{1, 2}}}}, 0, 0, 0},
		{"no finite values", &Bars{Categories: []string{"a", "b", "c"}, Series: []BarSeries{{Values: []float64{nan, inf, -inf}}}}, 0, 0, 0},
		{"short and long values", &Bars{Categories: []string{"a", "b", "c"}, Series: []BarSeries{{Values: []float64{1}}, {Values: []float64{1, 2, 3, 4, 5}}}}, 2, 4, 2},
		{"one value", &Bars{Categories: one, Series: []BarSeries{{Name: "a", Values: []float64{5}}}}, 1, 1, 0},
		{"all zero", &Bars{Categories: []string{"a", "b"}, Series: []BarSeries{{Values: []float64{0, 0}}}}, 1, 2, 0},
		{"negative", &Bars{Categories: []string{"a", "b", "c"}, Value: Axis{Unit: Seconds},
			Series: []BarSeries{{Values: []float64{-0.002, 0.001, -0.0005}, Lo: []float64{-0.003, 0}, Hi: []float64{-0.001, 0.002}}}}, 1, 3, 0},
		{"huge range", &Bars{Categories: []string{"a", "b", "c"}, Series: []BarSeries{{Values: []float64{-1e300, 1e-300, 1e300}}}}, 1, 3, 0},
		{"beyond the largest value", &Bars{Categories: []string{"a", "b"}, Series: []BarSeries{{Values: []float64{1e308, 1}}}}, 1, 1, 1},
		{"log drops non-positive", &Bars{Categories: []string{"a", "b", "c", "d"}, Value: Axis{Scale: Log, Unit: Bytes},
			Series: []BarSeries{{Values: []float64{0, -1, 1e-300, 1e300}, Lo: []float64{-1, 1}, Hi: []float64{1, 0}}}}, 1, 2, 2},
		{"fixed ends reversed and clipping", &Bars{Categories: []string{"a", "b"}, Value: Axis{Min: new(5.0), Max: new(1.0)},
			Series: []BarSeries{{Values: []float64{-100, 100}, Lo: []float64{-1e9, 2}, Hi: []float64{1e9, 3}}}}, 1, 2, 0},
		{"fixed ends not finite", &Bars{Categories: one, Value: Axis{Min: new(nan), Max: new(inf)}, Series: []BarSeries{{Values: []float64{2}}}}, 1, 1, 0},
		{"whiskers with gaps and reversed", &Bars{Categories: []string{"a", "b", "c"},
			Series: []BarSeries{{Values: []float64{1, 2, 3}, Lo: []float64{nan, 4, 0.5}, Hi: []float64{2, 1}}}}, 1, 3, 0},
		{"whisker without bar", &Bars{Categories: one, Series: []BarSeries{{Values: []float64{nan}, Lo: []float64{1}, Hi: []float64{2}}}}, 0, 0, 0},
		{"a series without bars gets no slot", &Bars{Categories: []string{"a", "b"},
			Series: []BarSeries{{Name: "x", Values: []float64{nan, nan}}, {Name: "y", Values: []float64{1, nan}}}}, 1, 1, 1},
		{"negative size", &Bars{Width: -5, Categories: one, Series: []BarSeries{{Values: []float64{1}}}}, 1, 1, 0},
		{"tiny size", &Bars{Width: 10, Title: "t", Note: "n", Value: Axis{Label: "v"}, Categories: []string{longHop},
			Series: []BarSeries{{Name: "a", Values: []float64{1}}, {Name: "b", Values: []float64{2}}}}, 2, 2, 0},
		{"huge size", &Bars{Width: 1 << 30, Categories: one, Series: []BarSeries{{Values: []float64{1}}}}, 1, 1, 0},
		{"odd units, scales and colours", &Bars{Categories: one, Value: Axis{Unit: Unit(42), Scale: Scale(42)},
			Series: []BarSeries{{Values: []float64{1}, Color: 1000}, {Values: []float64{2}, Color: -7}}}, 2, 2, 0},
		{"no data with axis and units", &Bars{Categories: one, Value: Axis{Label: "latency", Unit: Seconds, Scale: Log}}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseSVG(t, tt.c.SVG())
			series, points := p.counts(t)
			if series != tt.series || points != tt.points {
				t.Errorf("data-series=%d data-points=%d, want %d and %d", series, points, tt.series, tt.points)
			}
			if got, want := p.classes["series"], tt.points; got != want {
				t.Errorf("%d bars, want %d", got, want)
			}
			if got, want := p.classes["na"], tt.na; got != want {
				t.Errorf("%d n/a labels, want %d", got, want)
			}
			if got, want := p.classes["nodata"] == 1, tt.points == 0; got != want {
				t.Errorf("says no data: %v, want %v", got, want)
			}
			if p.classes["axis"] != 1 || p.classes["ticks"] != 2 || p.classes["grid"] != 1 {
				t.Errorf("axis missing: classes %v", p.classes)
			}
		})
	}
}

func TestBarsCounts(t *testing.T) {
	c := hopBars()
	c.Series = append(c.Series, BarSeries{Name: "empty", Values: []float64{nan}})
	p := parseSVG(t, c.SVG())
	if series, points := p.counts(t); series != 2 || points != 7 {
		t.Errorf("data-series=%d data-points=%d, want 2 and 7", series, points)
	}
	got := map[string]int{}
	for _, class := range []string{"series", "band", "na", "value", "row", "category", "legend", "title", "note", "nodata", "zero"} {
		got[class] = p.classes[class]
	}
	want := map[string]int{"series": 7, "band": 6, "na": 1, "value": 7, "row": 4, "category": 4, "legend": 1, "title": 1, "note": 1, "nodata": 0, "zero": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("elements per class (-want +got):\n%s", diff)
	}
	for _, want := range []string{c.Title, "p50 latency (ms)", "baseline", "sidecar", "31µs", "2.1ms", "n/a", "gateway → root, network"} {
		if !contains(p.texts, want) {
			t.Errorf("no text %q in %q", want, p.texts)
		}
	}
	if got, want := p.root["aria-label"], c.Title; got != want {
		t.Errorf("aria-label = %q, want %q", got, want)
	}
}

func TestBarsLabels(t *testing.T) {
	tests := []struct {
		name  string
		label string
		width int
		runes int // of the label drawn
	}{
		{"short", "gateway → root", 0, 14},
		{"exactly 48", strings.Repeat("x", 48), 1200, 48},
		{"cut at 48", longHop, 1200, 48},
		{"cut to the margin", longHop, 0, 46},
		{"narrow chart", longHop, 200, 13},
		{"escaped", `<a & "b">`, 0, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Bars{Width: tt.width, Categories: []string{tt.label}, Series: []BarSeries{{Values: []float64{1}}}}
			svg := c.SVG()
			p := parseSVG(t, svg)
			drawn := p.texts[0]
			if n := utf8.RuneCountInString(drawn); n != tt.runes {
				t.Errorf("label %q has %d runes, want %d", drawn, n, tt.runes)
			}
			if cut := tt.runes < utf8.RuneCountInString(tt.label); cut != strings.HasSuffix(drawn, "…") {
				t.Errorf("label %q: cut %v but ellipsis %v", drawn, cut, !cut)
			}
			if !strings.HasPrefix(tt.label, strings.TrimSuffix(drawn, "…")) {
				t.Errorf("label %q is not a prefix of %q", drawn, tt.label)
			}
			var esc bytes.Buffer
			(&svgWriter{&esc}).text(tt.label)
			if !strings.Contains(svg, `<g class="row"><title>`+esc.String()+"</title>") {
				t.Errorf("row has no tooltip with the full label %q:\n%s", tt.label, svg)
			}
		})
	}
}

func TestBarsLegend(t *testing.T) {
	two := []BarSeries{{Name: "flat", Values: []float64{1, 2}}, {Name: "cum", Values: []float64{3, 4}}}
	tests := []struct {
		name   string
		series []BarSeries
		want   int
	}{
		{"one series", two[:1], 0},
		{"two series", two, 1},
		{"unnamed", []BarSeries{{Values: []float64{1}}, {Values: []float64{2}}}, 0},
		{"second without bars", []BarSeries{two[0], {Name: "none"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseSVG(t, (&Bars{Categories: []string{"a", "b"}, Series: tt.series}).SVG())
			if got := p.classes["legend"]; got != tt.want {
				t.Errorf("%d legends, want %d", got, tt.want)
			}
		})
	}
}

func TestBarsInside(t *testing.T) {
	c := &Bars{
		Categories: []string{"a", "b", "c"},
		Value:      Axis{Min: new(-1.0), Max: new(10.0)},
		Series: []BarSeries{{Name: "x", Values: []float64{-1e300, 5, 1e300}, Lo: []float64{-50, 4, 0}, Hi: []float64{50, 6, 1}},
			{Name: "y", Values: []float64{3, 20, -0.5}}},
	}
	svg := c.SVG()
	parseSVG(t, svg)
	a := regexp.MustCompile(`class="axis"[^>]* d="M([0-9.]+) ([0-9.]+)V([0-9.]+)H([0-9.]+)`).FindStringSubmatch(svg)
	if a == nil {
		t.Fatalf("no axis:\n%s", svg)
	}
	x0, y0, y1, x1 := num(a[1]), num(a[2]), num(a[3]), num(a[4])
	zero := x0 + (x1-x0)/11
	bars := regexp.MustCompile(`class="series"[^>]* x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"`).FindAllStringSubmatch(svg, -1)
	if len(bars) != 6 {
		t.Fatalf("%d bars, want 6:\n%s", len(bars), svg)
	}
	for _, b := range bars {
		x, y, w, h := num(b[1]), num(b[2]), num(b[3]), num(b[4])
		if x < x0-0.1 || x+w > x1+0.1 || y < y0 || y+h > y1 {
			t.Errorf("bar %gx%g at (%g,%g) outside the plot area %g..%g × %g..%g", w, h, x, y, x0, x1, y0, y1)
		}
		if math.Abs(x-zero) > 0.2 && math.Abs(x+w-zero) > 0.2 {
			t.Errorf("bar %g..%g does not start at 0 (x=%g)", x, x+w, zero)
		}
	}
	for _, m := range regexp.MustCompile(`class="band"[^>]* d="M([0-9.]+) [0-9.]+H([0-9.]+)`).FindAllStringSubmatch(svg, -1) {
		if l, r := num(m[1]), num(m[2]); l < x0-0.1 || r > x1+0.1 || l > r {
			t.Errorf("whisker %g..%g outside %g..%g", l, r, x0, x1)
		}
	}
}

func TestBarsLogBase(t *testing.T) {
	c := &Bars{Categories: []string{"a", "b"}, Value: Axis{Scale: Log, Unit: Seconds}, Series: []BarSeries{{Values: []float64{10e-6, 1e-3}}}}
	svg := c.SVG()
	parseSVG(t, svg)
	for _, m := range regexp.MustCompile(`class="series"[^>]* width="([0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		if w := num(m[1]); w < 50 {
			t.Errorf("bar %gpx wide, want the smallest value at least half a decade from the axis end", w)
		}
	}
}

// num parses a number the tests found in the svg.
func num(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func BenchmarkBars(b *testing.B) {
	c := hopBars()
	b.ReportAllocs()
	for b.Loop() {
		_ = c.SVG()
	}
}
