package analysis

import (
	"slices"

	"github.com/latlab/latlab/spec"
)

// SLO is what a level must meet. The zero value asks for nothing.
type SLO struct {
	Latency []spec.Percentile // highest latencies allowed
	Errors  *float64          // highest error ratio allowed (0.01 is 1%); nil means any
}

// SLOOf returns the SLO a spec's slo: field sets (see spec.SLO.Named).
func SLOOf(s spec.SLO) SLO {
	n := s.Named()
	return SLO{Latency: n.Latency, Errors: n.Errors}
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

// A Knee is where one variant stops meeting an SLO: counting its levels
// upwards from the lowest, the last that meets it before the first that
// fails. A pass above a failure is noise, not capacity.
type Knee struct {
	Variant string
	Met     bool   // the lowest level meets the SLO
	Level   Level  // the highest level that meets it; zero unless Met
	Failed  *Level // the first level that fails; nil when all meet it
}

// KneeOf returns the knee of variant among levels, judged by slo.Meets on
// the medians over the counted runs. Met is false when the variant's
// lowest level already fails or it has no levels. Aggregate levels from
// valid runs only (the zero Options) for a knee that means anything.
func KneeOf(levels []LevelResult, variant string, slo SLO) Knee {
	k := Knee{Variant: variant}
	var s []LevelResult
	for _, l := range levels {
		if l.Variant == variant {
			s = append(s, l)
		}
	}
	slices.SortStableFunc(s, func(a, b LevelResult) int { return a.Level.Compare(b.Level) })
	for _, l := range s {
		if !slo.Meets(l) {
			lv := l.Level
			k.Failed = &lv
			break
		}
		k.Met, k.Level = true, l.Level
	}
	return k
}
