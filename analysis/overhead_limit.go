package analysis

import (
	"fmt"
	"math"
	"strings"
)

// Why says in words why d is n/a or cannot conclude: "all 5 runs of the
// baseline flagged or unfinished, left out (--include-flagged counts
// them)", "with 3 against 3 runs: a 95% CI needs 4 a side, a test able
// to reject at 5% needs 4 a side"; "" when Reason is "".
func (d Diff) Why() string {
	switch d.Reason {
	case ReasonFlagged:
		return strings.Join(d.emptySides("all %d runs of the %s", d.LeftOut, d.BaselineLeftOut), " and ") +
			" flagged or unfinished, left out (--include-flagged counts them)"
	case ReasonNA:
		return "the percentile is n/a (too few samples) in " + strings.Join(d.emptySides("%d run(s) of the %s", d.NA, d.BaselineNA), " and ")
	case ReasonNoRuns:
		return fmt.Sprintf("no runs to compare (%d against %d)", d.N, d.BaselineN)
	case ReasonFewRuns:
		ci, test := d.Needed()
		unit := "a side"
		if d.Method == MethodPaired {
			unit = "pairs"
		}
		var needs []string
		if !d.CIOK {
			needs = append(needs, fmt.Sprintf("a 95%% CI needs %d %s", ci, unit))
		}
		if !(d.MinP < Alpha) {
			holm := ""
			if d.Family > 1 {
				holm = fmt.Sprintf(" after Holm over %d comparisons", d.Family)
			}
			needs = append(needs, fmt.Sprintf("a test able to reject at %g%%%s needs %d %s", 100*Alpha, holm, test, unit))
		}
		return fmt.Sprintf("with %s: %s%s", d.compared(), strings.Join(needs, ", "), d.leftOut())
	}
	return ""
}

// leftOut says how many runs of each side were left out as flagged, or
// "" when none were.
func (d Diff) leftOut() string {
	sides := perSide("%d of the %s", d.LeftOut, d.BaselineLeftOut)
	if len(sides) == 0 {
		return ""
	}
	return " (flagged or unfinished runs left out: " + strings.Join(sides, ", ") + "; --include-flagged counts them)"
}

// emptySides is perSide for the sides with no runs to compare: a side
// with runs counts as 0.
func (d Diff) emptySides(format string, variant, baseline int) []string {
	if d.N > 0 {
		variant = 0
	}
	if d.BaselineN > 0 {
		baseline = 0
	}
	return perSide(format, variant, baseline)
}

// perSide writes format, given a count and "variant" or "baseline", for
// each side whose count is above 0, the variant first.
func perSide(format string, variant, baseline int) []string {
	var sides []string
	if variant > 0 {
		sides = append(sides, fmt.Sprintf(format, variant, "variant"))
	}
	if baseline > 0 {
		sides = append(sides, fmt.Sprintf(format, baseline, "baseline"))
	}
	return sides
}

// Needed returns how many runs a side a comparison needs for a 95%
// interval, and for a test able to reject at Alpha once Holm-adjusted
// over d.Family comparisons with as many runs each; paired, how many
// pairs.
func (d Diff) Needed() (ci, test int) {
	if d.Method == MethodPaired {
		return MinPairs, pairsNeeded(d.Family)
	}
	k := float64(max(d.Family, 1))
	for n := 1; ci == 0 || test == 0; n++ {
		if r, _ := shiftRank(n, n, confidence); ci == 0 && r > 0 {
			ci = n
		}
		if test == 0 && k*minRankP(n, n) < Alpha {
			test = n
		}
	}
	return ci, test
}

// pairsNeeded is how many pairs a paired comparison needs for a 95%
// interval and for a signed-rank test able to reject at Alpha once
// Holm-adjusted over family comparisons (one when family is 0).
func pairsNeeded(family int) int {
	n := MinPairs
	for float64(max(family, 1))*minSignedP(n) >= Alpha {
		n++
	}
	return n
}

// limit records the runs each side left out and lacks the percentile in
// (l and vc the variant's level and cell, b and bc the baseline's), and
// from them why d is n/a when a side has no value.
func (d *Diff) limit(l, b LevelResult, vc, bc Cell) {
	d.LeftOut, d.BaselineLeftOut, d.NA, d.BaselineNA = l.Excluded, b.Excluded, vc.NA, bc.NA
	if !math.IsNaN(d.Abs) {
		return
	}
	was := d.Why()
	switch {
	case (d.N == 0 && vc.NA > 0) || (d.BaselineN == 0 && bc.NA > 0):
		d.Reason = ReasonNA
	case (len(l.RunIDs) == 0 && l.Excluded > 0) || (len(b.RunIDs) == 0 && b.Excluded > 0):
		d.Reason = ReasonFlagged
	default:
		return
	}
	for i, w := range d.Warnings {
		if w == was {
			d.Warnings[i] = d.Why()
		}
	}
}

// holmReason marks the comparisons cs, one Holm family, that no outcome
// could make significant. Holm's adjusted p-values never fall when a raw
// one rises, so the smallest a row could get is its adjusted value with
// every row at the smallest p its runs allow. Rows without a p-value do
// not count, as in Holm.
func holmReason(cs []*Comparison) {
	least := make([]float64, len(cs))
	k := 0
	for i, c := range cs {
		least[i] = math.NaN()
		if !math.IsNaN(c.P) {
			least[i], k = c.MinP, k+1
		}
	}
	for i, p := range Holm(least) {
		c := cs[i]
		c.Family = k
		if math.IsNaN(p) {
			continue
		}
		c.MinP = p
		if c.MinP >= Alpha {
			c.Reason = ReasonFewRuns
		}
	}
}

// logs returns the natural logarithms of xs.
func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// positive reports whether every value of every sample is above 0.
func positive(samples ...[]float64) bool {
	for _, xs := range samples {
		for _, x := range xs {
			if !(x > 0) {
				return false
			}
		}
	}
	return true
}
