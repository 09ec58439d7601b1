package analysis

import (
	"slices"
	"time"
)

// A Limit is the highest latency allowed at a quantile, such as p99 < 50 ms.
type Limit struct {
	Name    string        // as written: "p99"
	Q       float64       // 0.99
	Latency time.Duration // the limit
}

// SLO is what a level must meet. The zero value asks for nothing.
type SLO struct {
	Latency []Limit
	Errors  *float64 // highest error ratio allowed (0.01 is 1%); nil means any
}

// Meets reports whether l meets slo: it has counted runs, the median error
// ratio is within the limit and every limited quantile's median is at or
// below its limit. A quantile that is not among Stats, or is n/a in any
// counted run, fails.
func (slo SLO) Meets(l LevelResult) bool {
	if len(l.RunIDs) == 0 {
		return false
	}
	if slo.Errors != nil && l.ErrorRatio > *slo.Errors {
		return false
	}
	for _, lim := range slo.Latency {
		i := slices.IndexFunc(l.Latency, func(c Cell) bool { return c.Q == lim.Q })
		if i < 0 || len(l.Latency[i].Values) == 0 || l.Latency[i].Median > lim.Latency.Seconds() {
			return false
		}
	}
	return true
}

// Knee returns the highest rate of one variant's levels that meets slo,
// counting the levels upwards from the lowest rate and stopping at the
// first that fails: a pass above a failure is noise, not capacity. ok is
// false when the lowest rate already fails or there are no levels.
// Aggregate levels from valid runs only (the zero Options) for a knee that
// means anything.
func Knee(levels []LevelResult, slo SLO) (rate float64, ok bool) {
	s := slices.Clone(levels)
	slices.SortStableFunc(s, func(a, b LevelResult) int { return a.Level.Compare(b.Level) })
	for _, l := range s {
		if !slo.Meets(l) {
			break
		}
		rate, ok = l.Level.Rate, true
	}
	return rate, ok
}
