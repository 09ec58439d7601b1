package analysis

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSummarizeTrends sums up made-up trends: runs without a fit left
// out, rising and falling counted by the trend flag's rule, the slope and
// the rise their medians, groups in the given variant order (unlisted
// first) and by level; the lag trends apart from those of service time.
func TestSummarizeTrends(t *testing.T) {
	run := func(variant string, rate float64, ok bool, slope, lo, hi, rise float64) RunDetail {
		d := RunDetail{TrendOK: ok, Trend: Trend{Slope: slope, Lo: lo, Hi: hi, Rise: rise, Median: 0.001}}
		d.Variant, d.Level = variant, Level{Rate: rate}
		// The generator's lag rises ten times as fast from nothing.
		d.LagTrendOK, d.LagTrend = ok, Trend{Quantity: Lag, Slope: 10 * slope, Lo: 10 * lo, Hi: 10 * hi, Rise: 10 * rise}
		return d
	}
	runs := []RunDetail{
		run("a", 200, true, 2e-9, 1e-9, 3e-9, 0.0002),      // rising: CI above 0, rise 20% of the median
		run("a", 200, true, 1e-9, 5e-10, 2e-9, 0.00005),    // CI above 0, rise 5%: not rising
		run("a", 200, true, -1e-9, -2e-9, -5e-10, -0.0001), // falling
		run("a", 100, true, 0, -1e-9, 1e-9, 0),
		run("a", 100, false, 9, 9, 9, 9), // no fit
		run("b", 100, true, 4e-9, -1e-9, 9e-9, 0.0003),
		run("z", 100, true, 0, -1e-9, 1e-9, 0),
	}
	nan := math.NaN()
	for _, tc := range []struct {
		q    TrendQuantity
		want []TrendSummary
	}{
		{ServiceTime, []TrendSummary{
			{Variant: "z", Level: Level{Rate: 100}, Runs: 1},
			{Variant: "b", Level: Level{Rate: 100}, Runs: 1, Slope: 4e-9, RiseSeconds: 0.0003, Rise: 0.3},
			{Variant: "a", Level: Level{Rate: 100}, Runs: 1},
			{Variant: "a", Level: Level{Rate: 200}, Runs: 3, Rising: 1, Up: 2, Falling: 1, Slope: 1e-9, RiseSeconds: 0.00005, Rise: 0.05},
		}},
		// A median lag of zero: any rise with its CI above zero is past
		// every share of it, and the relative rise is n/a.
		{Lag, []TrendSummary{
			{Variant: "z", Level: Level{Rate: 100}, Runs: 1, Rise: nan},
			{Variant: "b", Level: Level{Rate: 100}, Runs: 1, Slope: 4e-8, RiseSeconds: 0.003, Rise: nan},
			{Variant: "a", Level: Level{Rate: 100}, Runs: 1, Rise: nan},
			{Variant: "a", Level: Level{Rate: 200}, Runs: 3, Rising: 2, Up: 2, Falling: 1, Slope: 1e-8, RiseSeconds: 0.0005, Rise: nan},
		}},
		{Latency, []TrendSummary{}},
	} {
		t.Run(tc.q.String(), func(t *testing.T) {
			got := SummarizeTrends(runs, []string{"b", "a"}, tc.q)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(1e-9, 0), cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := SummarizeTrends(runs[4:5], nil, ServiceTime); len(got) != 0 {
		t.Errorf("a run without a fit sums up to %+v; want nothing", got)
	}
}
