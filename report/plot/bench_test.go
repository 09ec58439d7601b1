package plot

import (
	"math/rand/v2"
	"testing"
)

// scatter is a chart of n latency samples drawn as markers.
func scatter(n int) *Chart {
	r := rand.New(rand.NewPCG(1, 2))
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = Point{float64(i) / 50, 0.002 + r.ExpFloat64()*0.001}
	}
	return &Chart{
		Title:  "Every request",
		X:      Axis{Label: "time", Unit: Seconds},
		Y:      Axis{Label: "latency", Unit: Seconds, Scale: Log},
		Series: []Series{{Name: "requests", Points: pts, Style: Markers}},
	}
}

func TestScatterSize(t *testing.T) {
	const limit = 250 << 10
	svg := scatter(5000).SVG()
	p := parseSVG(t, svg)
	if _, points := p.counts(t); points != 5000 {
		t.Errorf("data-points = %d, want 5000", points)
	}
	if len(svg) >= limit {
		t.Errorf("5,000 markers take %d bytes of SVG, want < %d", len(svg), limit)
	}
}

func BenchmarkScatter5000(b *testing.B) {
	c := scatter(5000)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(c.SVG())
	}
	b.ReportMetric(float64(n), "bytes/svg")
}

func BenchmarkLatencyChart(b *testing.B) {
	c := latencyChart()
	b.ReportAllocs()
	for b.Loop() {
		_ = c.SVG()
	}
}
