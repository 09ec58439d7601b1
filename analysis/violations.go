package analysis

import (
	"fmt"
	"math"
	"slices"
)

// A Violation is one limit of an SLO that a variant breaks at a level.
type Violation struct {
	Variant string
	Level
	Limit string  // as written: "p99<50ms", "errors<1%"
	Max   float64 // the limit: seconds, or an error ratio
	Value float64 // the median over the counted runs; NaN when n/a
	// Bound is the value judged against Max: Value with strict, else the
	// lower bound of its 95% CI, or the lowest counted run's value when
	// there are too few runs for a CI; NaN when n/a. Judged says which.
	Bound  float64
	Judged string
}

// Violations judges every level of levels against slo, in levels' order
// and the SLO's within a level. By default a limit is broken only when the 95% CI
// of the median lies wholly past it (with fewer than 6 runs, when every
// counted run is past it); with strict, when the median is. A level
// without counted runs, or a quantile n/a in any counted run, breaks it
// too: a gate must not pass on no data.
func Violations(levels []LevelResult, slo SLO, strict bool) []Violation {
	var out []Violation
	for _, l := range levels {
		for _, lim := range slo.Latency {
			var vals []float64
			na := "n/a in every run"
			if i := slices.IndexFunc(l.Latency, func(c Cell) bool { return c.Q == lim.Q }); i >= 0 {
				vals, na = l.Latency[i].Values, l.Latency[i].NAText()
			}
			out = judgeLevel(out, l, limit(lim), lim.Latency.Seconds(), vals, na, strict)
		}
		if e := slo.Errors; e != nil {
			out = judgeLevel(out, l, errorsLimit(*e), *e, l.ErrorRatios, "", strict)
		}
	}
	return out
}

// judgeLevel judges one limit at l on the counted runs' values vals,
// appending to out when it is broken; na says why there are none
// although runs were counted.
func judgeLevel(out []Violation, l LevelResult, limit string, max float64, vals []float64, na string, strict bool) []Violation {
	v := Violation{Variant: l.Variant, Level: l.Level, Limit: limit, Max: max, Value: math.NaN(), Bound: math.NaN()}
	med, lo, _, ok := MedianCI(vals)
	switch {
	case len(l.RunIDs) == 0:
		v.Judged = "no runs counted"
	case len(vals) == 0:
		v.Judged = na
	case strict:
		v.Value, v.Bound, v.Judged = med, med, "median"
	case ok:
		v.Value, v.Bound, v.Judged = med, lo, "95% CI lower bound"
	default:
		v.Value, v.Bound, v.Judged = med, slices.Min(vals), fmt.Sprintf("lowest of %d runs", len(vals))
	}
	if math.IsNaN(v.Bound) || v.Bound > max {
		out = append(out, v)
	}
	return out
}

// An SLOVerdict is an experiment's levels judged against an SLO: each
// variant's knee and every limit a level breaks. The zero value judges
// nothing and is met.
type SLOVerdict struct {
	SLO    SLO
	Strict bool // judged on the medians, not the lower bounds of their 95% CIs
	// Knees are one per variant, in the order JudgeSLO was given them;
	// none without an SLO.
	Knees      []Knee
	Violations []Violation // in levels' order
}

// JudgeSLO judges levels against slo: the knee of each of variants
// (KneeOf) and the limits broken (Violations).
func JudgeSLO(levels []LevelResult, variants []string, slo SLO, strict bool) SLOVerdict {
	v := SLOVerdict{SLO: slo, Strict: strict}
	if slo.IsZero() {
		return v
	}
	for _, name := range variants {
		v.Knees = append(v.Knees, KneeOf(levels, name, slo))
	}
	v.Violations = Violations(levels, slo, strict)
	return v
}

// Met reports whether no level breaks the SLO.
func (v SLOVerdict) Met() bool { return len(v.Violations) == 0 }

// Err returns an error naming the SLO and how many rows break it, nil
// when it is met.
func (v SLOVerdict) Err() error {
	if v.Met() {
		return nil
	}
	return fmt.Errorf("SLO %s broken in %d row(s)", v.SLO, len(v.Violations))
}
