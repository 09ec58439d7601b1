package experiment

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/units"
)

// trendReason gives the reason for trend, or "": the fit of
// analysis.FitTrend to service time (Done − Sent) has a slope whose 95% CI
// excludes zero, a fitted change over the run above MaxTrend of the
// median service time and above analysis.TrendClear times the run's
// wander (analysis.Trend.Rising). The reason names both bounds, and the
// spec's field that sets the first. Only a rise counts, as
// docs/numbers.md says: a target falling behind its load; service time that falls
// as caches warm does not make a run wrong.
//
// The flag judges the target on what the target did. Latency (Done −
// Intended) also holds the generator's lag (Sent − Intended): a load
// generator that stalls, on a busy machine or in a collection, sends late,
// and latency rises while the target does nothing different; lag spikes
// also swell the median latency that a rise is measured against, hiding a
// target that does slow down.
//
// The lag's own trend is no flag of the target, and it does not feed
// generator_saturated either; the HTML report shows it apart, beside
// service time's (analysis.RunDetail.LagTrend). generator_saturated judges
// the generator by what its lateness does to the numbers, in absolute
// terms: lag p99 above MaxLagP99, or requests left unsent. A lag that
// rises enough to matter crosses those bounds; a rise measured as a share
// of the median lag, as trend measures service time, would flag a healthy
// generator whose lag creeps from 20 µs to 30 µs. And a closed loop, with
// no schedule, has no lag to fall behind on.
func trendReason(v spec.Validity, raw []record.Raw) string {
	f, ok := analysis.FitTrend(raw, analysis.ServiceTime)
	if !ok || !f.Rising(v.MaxTrend) {
		return ""
	}
	n := float64(f.N)
	wander := fmt.Sprintf("%.1f times the run's wander %s (> %g)", f.Rise/f.Wander, units.Seconds(f.Wander), analysis.TrendClear)
	if f.Wander == 0 {
		wander = "the run does not wander about it"
	}
	return fmt.Sprintf("service time rises by %s over %d requests (95%% CI %s to %s): %.1f%% of the median %s (> %.4g%%, validity.max_trend), and %s",
		units.Seconds(f.Rise), f.N, units.Seconds(f.Lo*n), units.Seconds(f.Hi*n),
		100*f.Rise/f.Median, units.Seconds(f.Median), 100*v.MaxTrend, wander)
}

// holdTrend is trendReason for run r. A ramp is judged on its hold, the
// requests due once its last workers started (record.Result.HoldFrom):
// service time that rises with the load while workers are added is what a
// ramp is run to see, not a fault.
func holdTrend(v spec.Validity, r *record.Result) string {
	if r.HoldFrom <= 0 {
		return trendReason(v, r.Raw)
	}
	i, _ := slices.BinarySearchFunc(r.Raw, r.HoldFrom, func(s record.Raw, t time.Duration) int { return cmp.Compare(s.Intended, t) })
	reason := trendReason(v, r.Raw[i:])
	if reason == "" {
		return ""
	}
	return fmt.Sprintf("%s, over the ramp's hold (from %s)", reason, r.HoldFrom)
}
