package probe

import "time"

// sample is one value of a counter series at t milliseconds after the run
// start. Prometheus keeps millisecond timestamps, and so do the windows here,
// so that the rates come out as Prometheus's would.
type sample struct {
	t int64
	v float64
}

// rate returns what PromQL's rate(x[rng]) evaluated at end returns
// (extrapolatedRate in promql/functions.go, for a float counter without
// start timestamps). s holds the samples inside the window (end-rng, end],
// oldest first; ok is false when there are fewer than two, in which case
// Prometheus returns no value either. It is the increase (see increase)
// times the extrapolation factor (see extrapolation).
func rate(s []sample, end, rng int64) (r float64, ok bool) {
	if len(s) < 2 {
		return 0, false
	}
	inc := increase(s)
	return inc * extrapolation(s, inc, end, rng), true
}

// increase returns last − first plus, at every decrease (a counter reset),
// the value before it.
func increase(s []sample) float64 {
	result := s[len(s)-1].v - s[0].v
	for i := 1; i < len(s); i++ {
		if s[i].v < s[i-1].v {
			result += s[i-1].v
		}
	}
	return result
}

// extrapolation returns the factor that turns inc, the increase of a counter
// over the samples s (at least two), into its rate over the window
// (end-rng, end]. The increase is extrapolated towards the window's edges:
// all the way when the first or last sample lies within 1.1 average sample
// intervals of the edge, by half an interval otherwise, and never past the
// point where the counter, s[0].v at the first sample, would have been
// zero.
func extrapolation(s []sample, inc float64, end, rng int64) float64 {
	first, last := s[0], s[len(s)-1]
	var (
		durationToStart = float64(first.t-(end-rng)) / 1000
		durationToEnd   = float64(end-last.t) / 1000
		sampledInterval = float64(last.t-first.t) / 1000
		averageInterval = sampledInterval / float64(len(s)-1)
		threshold       = averageInterval * 1.1
	)
	if durationToStart >= threshold {
		durationToStart = averageInterval / 2
	}
	durationToZero := durationToStart
	if inc > 0 && first.v >= 0 {
		durationToZero = sampledInterval * (first.v / inc)
	}
	if durationToZero < durationToStart {
		durationToStart = durationToZero
	}
	if durationToEnd >= threshold {
		durationToEnd = averageInterval / 2
	}
	factor := 1.0
	if sampledInterval != 0 {
		factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval
	}
	return factor / (time.Duration(rng) * time.Millisecond).Seconds()
}

// trim drops the samples at or before start, which fall out of a window
// (start, end]: Prometheus range selectors are left-open.
func trim(s []sample, start int64) []sample {
	i := 0
	for i < len(s) && s[i].t <= start {
		i++
	}
	if i == 0 {
		return s
	}
	// Shift down rather than reslice so the backing array is reused instead
	// of growing without bound over a long run.
	n := copy(s, s[i:])
	return s[:n]
}
