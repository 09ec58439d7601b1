package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Holm returns the Holm–Bonferroni adjusted p-values of ps, in the same
// order: the i-th smallest of m p-values is multiplied by m−i+1, made
// non-decreasing in that order and capped at 1. Comparing the adjusted
// values with α keeps the chance of any false positive among the m tests
// at α. NaN p-values are kept as NaN and do not count towards m.
func Holm(ps []float64) []float64 {
	out := make([]float64, len(ps))
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		out[i] = math.NaN()
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	m, run := len(idx), 0.0
	for r, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-r)*ps[i]))
		out[i] = run
	}
	return out
}

// HolmReach warns when the runs are too few for any comparison of cs to
// come out significant: the smallest p-value an exact U test can give n
// against m runs is 2/C(n+m, n) (minRankP), a signed-rank test of n
// pairs 2/2ⁿ (minSignedP), and Holm multiplies the smallest of a
// quantile's k p-values by k. It returns "" when some comparison can
// reach α.
func HolmReach(cs []Comparison) string {
	family := map[string]int{}
	best, bestAt := math.Inf(1), Diff{}
	for _, c := range cs {
		if math.IsNaN(c.P) {
			continue
		}
		family[c.Name]++
		if p := c.leastP(); p < best {
			best, bestAt = p, c.Diff
		}
	}
	k := 0
	for _, size := range family {
		k = max(k, size)
	}
	if k == 0 || best*float64(k) < Alpha {
		return ""
	}
	test := "U"
	if bestAt.Method == MethodPaired {
		test = "signed-rank"
	}
	return fmt.Sprintf("%s: no %s test can give p below %.3g, and Holm across a quantile's %d comparisons needs below %.3g: "+
		"no overhead can come out significant; run more repetitions: "+RaiseRuns, bestAt.compared(), test, best, k, Alpha/float64(k))
}

// RaiseRuns is how to get more repetitions of a stored experiment: the
// advice of a table too few runs leave inconclusive.
const RaiseRuns = "raise runs: in the spec and run the same latlab run again, and the experiment goes on with the runs it has"

// leastP is the smallest p-value, before Holm, that d's test could give
// with its runs whatever they measured.
func (d Diff) leastP() float64 {
	if d.Method == MethodPaired {
		return minSignedP(d.Pairs)
	}
	return minRankP(d.N, d.BaselineN)
}
