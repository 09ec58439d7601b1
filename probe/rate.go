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
// Prometheus returns no value either.
//
// The increase is last − first plus, at every decrease (a counter reset), the
// value before it. It is then extrapolated towards the window's edges: all the
// way when the first or last sample lies within 1.1 average sample intervals
// of the edge, by half an interval otherwise, and never past the point where
// the counter would have been zero.
func rate(s []sample, end, rng int64) (r float64, ok bool) {
	if len(s) < 2 {
		return 0, false
	}
	first, last := s[0], s[len(s)-1]
	result := last.v - first.v
	for i := 1; i < len(s); i++ {
		if s[i].v < s[i-1].v {
			result += s[i-1].v
		}
	}
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
	if result > 0 && first.v >= 0 {
		durationToZero = sampledInterval * (first.v / result)
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
	factor /= (time.Duration(rng) * time.Millisecond).Seconds()
	return result * factor, true
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
