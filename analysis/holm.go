package analysis

import (
	"cmp"
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
