package analysis

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSummarizeTrends sums up made-up trends: runs without a fit left
// out, rising and falling counted by the trend flag's rule, the slope and
// the relative rise their medians, groups in the given variant order
// (unlisted first) and by level.
func TestSummarizeTrends(t *testing.T) {
	run := func(variant string, rate float64, ok bool, slope, lo, hi, rise float64) RunDetail {
		d := RunDetail{TrendOK: ok, Trend: Trend{Slope: slope, Lo: lo, Hi: hi, Rise: rise, Median: 0.001}}
		d.Variant, d.Level = variant, Level{Rate: rate}
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
	got := SummarizeTrends(runs, []string{"b", "a"})
	want := []TrendSummary{
		{Variant: "z", Level: Level{Rate: 100}, Runs: 1},
		{Variant: "b", Level: Level{Rate: 100}, Runs: 1, Slope: 4e-9, Rise: 0.3},
		{Variant: "a", Level: Level{Rate: 100}, Runs: 1},
		{Variant: "a", Level: Level{Rate: 200}, Runs: 3, Rising: 1, Falling: 1, Slope: 1e-9, Rise: 0.05},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 0)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := SummarizeTrends(runs[4:5], nil); len(got) != 0 {
		t.Errorf("a run without a fit sums up to %+v; want nothing", got)
	}
}
