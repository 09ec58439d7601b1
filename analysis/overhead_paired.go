package analysis

import (
	"fmt"
	"math"
)

// PairedOverhead compares variant's per-run values of one quantile at one
// level with baseline's run by run: variant[i] and baseline[i] are the
// runs of one repetition, run side by side in the plan, so that whatever
// slowed that repetition down, slowed both. The overhead is the centre of
// the differences and its interval and test the signed-rank ones (see
// SignedRank): it needs MinPairs pairs for a 95% interval. Slices of
// different lengths are no pairs: the Diff is then n/a and says so.
func PairedOverhead(variant, baseline []float64) Diff {
	d := pairedOverhead(variant, baseline, Floor)
	d.disagree()
	return d
}

// pairedOverhead is PairedOverhead with a measurement floor, as overhead.
func pairedOverhead(variant, baseline []float64, floor float64) Diff {
	n := len(variant)
	d := Diff{N: n, BaselineN: len(baseline), Pairs: n, Method: MethodPaired, P: math.NaN(), PAdj: math.NaN(), MinP: math.NaN()}
	d.Baseline = Median(baseline)
	if n == 0 || n != len(baseline) {
		d.Abs, d.Rel, d.Reason, d.Pairs = math.NaN(), math.NaN(), ReasonNoRuns, 0
		d.Warnings = append(d.Warnings, d.Why())
		if n != len(baseline) {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%d variant values against %d baseline values are not pairs", n, len(baseline)))
		}
		return d
	}
	diffs := make([]float64, n)
	for i := range diffs {
		diffs[i] = variant[i] - baseline[i]
	}
	var p float64
	d.Abs, d.AbsLo, d.AbsHi, p, d.CIOK = SignedRank(diffs)
	if positive(variant, baseline) {
		d.RelOK = true
		lv, lb := logs(variant), logs(baseline)
		for i := range diffs {
			diffs[i] = lv[i] - lb[i]
		}
		r, lo, hi, _, _ := SignedRank(diffs)
		d.Rel, d.RelLo, d.RelHi = math.Expm1(r), math.Expm1(lo), math.Expm1(hi)
	}
	d.MinP = minSignedP(n)
	d.P, d.PAdj = p, p
	d.Significant = d.P < Alpha
	if !d.CIOK || d.MinP >= Alpha {
		d.Reason = ReasonFewRuns
	}
	d.check(floor)
	return d
}
