package experiment

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/units"
)

// trendReason gives the reason for trend, or "": the fit of
// analysis.FitTrend has a slope whose 95% CI excludes zero and a fitted
// change over the run above MaxTrend of the median latency
// (analysis.Trend.Rising). Only a rise counts, as the README says: a target
// falling behind its load; latency that falls as caches warm does not make
// a run wrong.
func (v Validity) trendReason(raw []record.Raw) string {
	f, ok := analysis.FitTrend(raw, analysis.Latency)
	if !ok || !f.Rising(v.MaxTrend) {
		return ""
	}
	n := float64(f.N)
	return fmt.Sprintf("latency rises by %s over %d requests (95%% CI %s to %s), %.1f%% of the median %s (> %.4g%%)",
		units.Seconds(f.Rise), f.N, units.Seconds(f.Lo*n), units.Seconds(f.Hi*n),
		100*f.Rise/f.Median, units.Seconds(f.Median), 100*v.MaxTrend)
}

// holdTrend is trendReason for run r. A ramp is judged on its hold, the
// requests due once its last workers started (record.Result.HoldFrom):
// latency that rises with the load while workers are added is what a ramp
// is run to see, not a fault.
func (v Validity) holdTrend(r *record.Result) string {
	if r.HoldFrom <= 0 {
		return v.trendReason(r.Raw)
	}
	i, _ := slices.BinarySearchFunc(r.Raw, r.HoldFrom, func(s record.Raw, t time.Duration) int { return cmp.Compare(s.Intended, t) })
	reason := v.trendReason(r.Raw[i:])
	if reason == "" {
		return ""
	}
	return fmt.Sprintf("%s, over the ramp's hold (from %s)", reason, r.HoldFrom)
}
