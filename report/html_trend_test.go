package report

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
)

// TestTrendSectionLagApart draws the trend of a run whose generator falls
// further and further behind while the target's service time stays flat:
// the service-time table counts no run rising, the generator's lag table
// counts it, with the lag's rise in seconds, and each has its own chart.
func TestTrendSectionLagApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	raw := make([]record.Raw, n)
	for i := range raw {
		at := time.Duration(i) * time.Millisecond
		lag := time.Duration(float64(4*time.Millisecond) * float64(i) / n * 2 * rng.Float64())
		svc := time.Duration((1 + 0.2*rng.Float64()) * float64(time.Millisecond))
		raw[i] = record.Raw{Intended: at, Sent: at + lag, Done: at + lag + svc}
	}
	run := analysis.RunDetail{}
	run.ID, run.Variant, run.Level = 7, "a", analysis.Level{Rate: 1000}
	run.Trend, run.TrendOK = analysis.FitTrend(raw, analysis.ServiceTime)
	run.LagTrend, run.LagTrendOK = analysis.FitTrend(raw, analysis.Lag)
	for i, r := range raw {
		run.Samples = append(run.Samples, analysis.Point{X: float64(i), Y: (r.Done - r.Sent).Seconds()})
		run.LagSamples = append(run.LagSamples, analysis.Point{X: float64(i), Y: (r.Sent - r.Intended).Seconds()})
	}
	r := &Experiment{variants: []string{"a"}, Exp: &analysis.Experiment{}}
	s, ok := r.trendSection(&Detail{Runs: []analysis.RunDetail{run}}, []*analysis.RunDetail{&run})
	if !ok {
		t.Fatal("no trend section")
	}
	if len(s.Tables) != 2 {
		t.Fatalf("%d tables; want service time's and lag's", len(s.Tables))
	}
	cells := func(tb htmlTable) []string {
		var out []string
		for _, c := range tb.Rows[0] {
			out = append(out, c.Text)
		}
		return out
	}
	svc, lag := s.Tables[0], s.Tables[1]
	if got := cells(svc); svc.Caption != "Target: service time" || got[3] != "0" {
		t.Errorf("service time's table %q: %q; want no run rising", svc.Caption, got)
	}
	// The lag rises by about 4 ms × 90% of the run fitted.
	got := cells(lag)
	if !strings.HasPrefix(lag.Caption, "Generator: lag") || got[3] != "1" || !strings.HasPrefix(got[6], "+3.") || !strings.HasSuffix(got[6], "ms") {
		t.Errorf("lag's table %q: %q; want the run rising by about +3.6ms", lag.Caption, got)
	}
	if len(s.Plots) != 1 || !strings.Contains(string(s.Plots[0]), `id="trend-7"`) ||
		!strings.Contains(string(s.Plots[0]), "service time against request number") {
		t.Errorf("service time's charts: want one, trend-7, of service time")
	}
	if len(s.Groups) != 1 || len(s.Groups[0].Plots) != 1 || !strings.Contains(string(s.Groups[0].Plots[0].SVG), `id="lag-trend-7"`) ||
		!strings.Contains(string(s.Groups[0].Plots[0].SVG), "generator lag against request number") {
		t.Errorf("lag's charts: want one group with lag-trend-7, of generator lag")
	}
}
