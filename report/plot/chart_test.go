package plot

import (
	"bytes"
	"errors"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRobust(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name           string
		c              *Chart
		series, points int
	}{
		{"nil", nil, 0, 0},
		{"zero", &Chart{}, 0, 0},
		{"no finite points", &Chart{Series: []Series{{Name: "a", Points: []Point{{nan, 1}, {1, nan}, {inf, 2}, {3, -inf}}}}}, 0, 0},
		{"empty series", &Chart{Series: []Series{{Name: "a"}, {}}}, 0, 0},
		{"single point", &Chart{Series: []Series{{Name: "a", Points: []Point{{1, 2}}}}}, 1, 1},
		{"all equal", &Chart{Series: []Series{{Points: []Point{{3, 5}, {3, 5}, {3, 5}}}}}, 1, 3},
		{"negative", &Chart{Y: Axis{Unit: Seconds}, Series: []Series{{Points: []Point{{1, -0.002}, {2, 0.001}, {3, -0.0005}}}}}, 1, 3},
		{"huge range", &Chart{Series: []Series{{Points: []Point{{-1e300, 1e-300}, {1e300, 1e300}, {0, -1e300}}}}}, 1, 3},
		{"beyond the largest value", &Chart{Series: []Series{{Points: []Point{{1, 1e308}, {2, -1e308}, {3, 1}}}}}, 1, 1},
		{"tiny range", &Chart{Series: []Series{{Points: []Point{{1, 1e15}, {2, 1e15 + 1}, {3, 1e-310}}}}}, 1, 3},
		{"log drops non-positive", &Chart{Y: Axis{Scale: Log}, Series: []Series{{Points: []Point{{1, 0}, {2, -1}, {3, 10}, {4, 1e-300}, {5, 1e300}}}}}, 1, 3},
		{"log with one value", &Chart{X: Axis{Scale: Log}, Y: Axis{Scale: Log, Unit: Bytes}, Series: []Series{{Points: []Point{{100, 100}}}}}, 1, 1},
		{"percentile drops q outside [0,1)", &Chart{X: Axis{Scale: Percentile}, Series: []Series{{Points: []Point{{-0.1, 1}, {0, 1}, {0.5, 2}, {0.999999, 3}, {1, 4}, {1.5, 5}}}}}, 1, 3},
		{"fixed ends reversed", &Chart{X: Axis{Min: new(5.0), Max: new(1.0)}, Y: Axis{Min: new(2.0), Max: new(2.0)}, Series: []Series{{Points: []Point{{1, 2}, {3, 4}}}}}, 1, 2},
		{"fixed ends not finite", &Chart{X: Axis{Min: new(nan), Max: new(inf)}, Y: Axis{Scale: Log, Min: new(-1.0), Max: new(0.0)}, Series: []Series{{Points: []Point{{1, 2}}}}}, 1, 1},
		{"negative size", &Chart{Width: -5, Height: -1, Series: []Series{{Points: []Point{{1, 2}, {2, 3}}}}}, 1, 2},
		{"tiny size", &Chart{Width: 10, Height: 10, Title: "t", Note: "n", X: Axis{Label: "x"}, Y: Axis{Label: "y"}, Series: []Series{{Name: "a", Points: []Point{{1, 2}, {2, 3}}}}}, 1, 2},
		{"huge size", &Chart{Width: 1 << 30, Height: 1 << 30, Series: []Series{{Points: []Point{{1, 2}, {2, 3}}}}}, 1, 2},
		{"bands with gaps and short slices", &Chart{Series: []Series{{Name: "a", Style: Steps, Points: []Point{{1, 2}, {2, 3}, {3, 4}, {4, 5}},
			Lo: []float64{1, nan, 2, 3}, Hi: []float64{3, 4, inf}}}}, 1, 4},
		{"band without points", &Chart{Series: []Series{{Name: "a", Points: []Point{{1, nan}, {2, nan}}, Lo: []float64{1, 2}, Hi: []float64{2, 3}}}}, 0, 0},
		{"odd styles, colours and widths", &Chart{Series: []Series{
			{Style: Style(9), Color: 1000, Width: nan, Points: []Point{{1, 2}}},
			{Style: Markers, Color: -7, Width: -1, Dashed: true, Points: []Point{{1, 2}}},
			{Style: LineMarkers, Width: 1e9, Points: []Point{{1, 2}, {nan, 1}, {2, 3}}},
		}}, 3, 4},
		{"spans and rules off the data", &Chart{X: Axis{Scale: Log}, Series: []Series{{Points: []Point{{1, 2}, {10, 3}}}},
			Shade: []Span{{From: -1, To: 5, Label: "a"}, {From: nan, To: 1}, {From: 5, To: 5}, {From: 1e9, To: inf}},
			Rules: []Rule{{Y: nan}, {Y: inf, Label: "x"}, {Y: 2.5, Label: "in"}}}, 1, 2},
		{"no data with axes and units", &Chart{X: Axis{Label: "q", Scale: Percentile}, Y: Axis{Label: "latency", Unit: Seconds, Scale: Log}}, 0, 0},
		{"odd units and scales", &Chart{X: Axis{Unit: Unit(42), Scale: Scale(42)}, Y: Axis{Unit: -1, Scale: -1}, Series: []Series{{Points: []Point{{1, 2}}}}}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c.SVG()
			p := parseSVG(t, got)
			series, points := p.counts(t)
			if series != tt.series || points != tt.points {
				t.Errorf("data-series=%d data-points=%d, want %d and %d", series, points, tt.series, tt.points)
			}
			if got, want := p.classes["series"], tt.series; got != want {
				t.Errorf("%d series paths, want %d", got, want)
			}
			if got, want := p.classes["nodata"] == 1, tt.points == 0; got != want {
				t.Errorf("says no data: %v, want %v", got, want)
			}
			if p.classes["axis"] != 1 || p.classes["ticks"] != 2 {
				t.Errorf("axes missing: classes %v", p.classes)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	c := latencyChart()
	c.Series = append(c.Series,
		Series{Name: "empty"},
		Series{Points: []Point{{70, 0.001}}, Style: Markers}, // outside the shade, unnamed
	)
	c.Shade = append(c.Shade, Span{From: 50, To: 55})
	p := parseSVG(t, c.SVG())
	series, points := p.counts(t)
	if series != 3 || points != 60+59+1 {
		t.Errorf("data-series=%d data-points=%d, want 3 and 120", series, points)
	}
	got := map[string]int{}
	for _, class := range []string{"series", "band", "shade", "rule", "legend", "title", "note", "nodata"} {
		got[class] = p.classes[class]
	}
	want := map[string]int{"series": 3, "band": 1, "shade": 2, "rule": 1, "legend": 1, "title": 1, "note": 1, "nodata": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("elements per class (-want +got):\n%s", diff)
	}
}

func TestLabels(t *testing.T) {
	c := latencyChart()
	c.X.Label, c.Y.Label = "", "latency & <tail>"
	c.Series[0].Name = `"p50" 'median'`
	p := parseSVG(t, c.SVG())
	if got, want := p.root["aria-label"], c.Title; got != want {
		t.Errorf("aria-label = %q, want %q", got, want)
	}
	for _, want := range []string{c.Title, "latency & <tail> (ms)", `"p50" 'median'`, "warm-up", "SLO p99 < 9ms", c.Note, "0s", "10s", "60s"} {
		if !contains(p.texts, want) {
			t.Errorf("no text %q in %q", want, p.texts)
		}
	}
	if got := (&Chart{}).SVG(); !strings.Contains(got, `aria-label="chart"`) {
		t.Errorf("untitled chart has no accessible name:\n%s", got)
	}
}

// contains reports whether ss holds s.
func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

var coords = regexp.MustCompile(`-?[0-9.]+`)

// pathNumbers returns the numbers in the d attribute of the series paths.
func pathNumbers(svg string) []float64 {
	var out []float64
	for _, m := range regexp.MustCompile(`class="series"[^>]* d="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		for _, n := range coords.FindAllString(m[1], -1) {
			v, _ := strconv.ParseFloat(n, 64)
			out = append(out, v)
		}
	}
	return out
}

func TestClip(t *testing.T) {
	line := []Point{{0, 0}, {5, 10}, {10, 2}, {1e6, 1e300}, {1e6, 1e300}, {-1e300, 1e300}}
	c := &Chart{
		X: Axis{Min: new(2.0), Max: new(8.0)},
		Y: Axis{Min: new(0.0), Max: new(5.0)},
		Series: []Series{
			{Points: line, Lo: []float64{-1e300, 0, 0, 0}, Hi: []float64{1e300, 20, 20, 20}},
			{Points: []Point{{1, 1}, {3, 3}, {9, 4}, {5, 6}}, Style: Markers},
		},
	}
	svg := c.SVG()
	p := parseSVG(t, svg)
	if _, points := p.counts(t); points != len(line)+4 {
		t.Errorf("data-points = %d, want every finite point, %d", points, len(line)+4)
	}
	clip := regexp.MustCompile(`<clipPath id="([^"]+)"><rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"/>`).FindStringSubmatch(svg)
	if clip == nil {
		t.Fatalf("no clip path:\n%s", svg)
	}
	if !strings.Contains(svg, `<g clip-path="url(#`+clip[1]+`)">`+"\n"+`<path class="band"`) {
		t.Errorf("bands and series are not inside the clipped group:\n%s", svg)
	}
	// Coordinates stay within a plot size of the plot area, so that nothing
	// huge is written.
	w, _ := strconv.ParseFloat(clip[4], 64)
	h, _ := strconv.ParseFloat(clip[5], 64)
	for _, v := range pathNumbers(svg) {
		if v < -2*max(w, h) || v > 3*max(w, h) {
			t.Errorf("coordinate %g far outside a %gx%g plot", v, w, h)
		}
	}
	// Only the markers inside the fixed range are drawn.
	if n := strings.Count(svg, "h0"); n != 1 {
		t.Errorf("%d markers drawn, want the one at (3,3)", n)
	}
}

func TestLegendPlacement(t *testing.T) {
	rising := []Point{{0, 0}, {1, 1}, {2, 4}, {3, 9}, {4, 16}}
	falling := []Point{{0, 16}, {1, 9}, {2, 4}, {3, 1}, {4, 0}}
	legendX := regexp.MustCompile(`<g class="legend"><rect x="([0-9.]+)"`)
	axis := regexp.MustCompile(`class="axis"[^>]* d="M([0-9.]+) [0-9.]+V[0-9.]+H([0-9.]+)`)
	tests := []struct {
		name   string
		series []Series
		want   string // where the legend goes
	}{
		{"top left over rising data", []Series{{Name: "up", Points: rising}}, "left"},
		{"top right over falling data", []Series{{Name: "down", Points: falling}}, "right"},
		{"outside when both are taken", []Series{{Name: "up", Points: rising}, {Name: "down", Points: falling}}, "outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := (&Chart{Series: tt.series}).SVG()
			m, a := legendX.FindStringSubmatch(svg), axis.FindStringSubmatch(svg)
			if m == nil || a == nil {
				t.Fatalf("no legend or axis:\n%s", svg)
			}
			x, _ := strconv.ParseFloat(m[1], 64)
			x0, _ := strconv.ParseFloat(a[1], 64)
			x1, _ := strconv.ParseFloat(a[2], 64)
			got := "left"
			switch {
			case x > x1:
				got = "outside"
			case x > (x0+x1)/2:
				got = "right"
			}
			if got != tt.want {
				t.Errorf("legend at x=%g (plot %g..%g): %s, want %s", x, x0, x1, got, tt.want)
			}
		})
	}
}

func TestColors(t *testing.T) {
	auto := func(n int) []Series {
		ss := make([]Series, n)
		for i := range ss {
			ss[i].Color = -1
		}
		return ss
	}
	tests := []struct {
		name   string
		series []Series
		want   []string
	}{
		{"zero value is the first colour", []Series{{}, {}}, []string{"#0072B2", "#0072B2"}},
		{"automatic skips used colours", []Series{{Color: 0}, {Color: -1}, {Color: 2}, {Color: -1}},
			[]string{"#0072B2", "#E69F00", "#009E73", "#D55E00"}},
		{"indices wrap", []Series{{Color: 9}}, []string{"#E69F00"}},
		{"yellow last, then cycle", auto(9),
			[]string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442", "#0072B2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, assignColors(tt.series)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestWriteSVG checks that a line chart and a bar chart write what SVG
// returns, and pass on a writer's error.
func TestWriteSVG(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    interface {
			WriteSVG(io.Writer) error
			SVG() string
		}
	}{
		{"chart", latencyChart()},
		{"bars", hopBars()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.c.WriteSVG(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.c.SVG() {
				t.Error("WriteSVG and SVG differ")
			}
			if err := tt.c.WriteSVG(failWriter{}); !errors.Is(err, errWrite) {
				t.Errorf("WriteSVG to a failing writer = %v, want %v", err, errWrite)
			}
		})
	}
}

func TestIDs(t *testing.T) {
	a, b := latencyChart(), latencyChart()
	a.ID, b.ID = "", ""
	b.Series[0].Points[3].Y *= 2
	idOf := regexp.MustCompile(`<clipPath id="([^"]+)"`)
	ida, idb := idOf.FindStringSubmatch(a.SVG())[1], idOf.FindStringSubmatch(b.SVG())[1]
	if ida == idb {
		t.Errorf("two different charts share the clip path id %q", ida)
	}
	if again := idOf.FindStringSubmatch(a.SVG())[1]; again != ida {
		t.Errorf("clip path id changed from %q to %q between renders", ida, again)
	}
	a.ID = `my chart (1)`
	if got := idOf.FindStringSubmatch(a.SVG())[1]; got != "my_chart__1_-clip" {
		t.Errorf("clip path id from ID %q = %q", a.ID, got)
	}
}
