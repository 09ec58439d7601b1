package plot

import (
	"testing"
)

// latencyChart is a representative chart: two latency series over time, a
// confidence band on one, a warm-up shade and an SLO rule.
func latencyChart() *Chart {
	p50 := wave(60, 60, 0.0021, 0.0004, 0)
	p99 := wave(60, 60, 0.0062, 0.0015, 1)
	lo, hi := make([]float64, len(p99)), make([]float64, len(p99))
	for i, q := range p99 {
		lo[i], hi[i] = q.Y*0.85, q.Y*1.2
	}
	p99[30].Y = nan // a gap
	return &Chart{
		ID:    "latency",
		Title: "Latency over time <baseline & sidecar>",
		X:     Axis{Label: "time", Unit: Seconds},
		Y:     Axis{Label: "latency", Unit: Seconds, ZeroBased: true},
		Series: []Series{
			{Name: "p50", Points: p50, Color: -1},
			{Name: "p99", Points: p99, Lo: lo, Hi: hi, Color: -1, Dashed: true, Style: LineMarkers},
		},
		Shade: []Span{{From: 0, To: 10, Label: "warm-up"}},
		Rules: []Rule{{Y: 0.009, Label: "SLO p99 < 9ms"}},
		Note:  "band: 95% CI of the p99 over runs",
	}
}

func TestGolden(t *testing.T) {
	got := latencyChart().SVG()
	parseSVG(t, got)
	checkGolden(t, "latency.svg", got)
}
