package analysis

import (
	"math"
	"sort"
)

// HodgesLehmannRatio estimates the ratio new/old as the median of all
// pairwise ratios y_j/x_i (the Hodges–Lehmann shift on log scale) and
// bounds it with the distribution-free interval that inverts the
// Mann-Whitney U test: with k the largest integer such that P(U < k) ≤
// (1−confidence)/2 under the null, the interval is the k-th smallest and
// k-th largest pairwise ratio. k is the rank HodgesLehmann interpolates
// from (see shiftRank), taken without interpolation, so that the interval
// keeps at least its confidence. ok is false when a value is not positive
// or the samples are too small for any interval at this confidence; then
// the bounds are the smallest and largest pairwise ratio.
func HodgesLehmannRatio(x, y []float64, confidence float64) (est, lo, hi float64, ok bool) {
	m, n := len(x), len(y)
	if m == 0 || n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), false
	}
	for _, v := range append(append([]float64(nil), x...), y...) {
		if v <= 0 {
			return math.NaN(), math.NaN(), math.NaN(), false
		}
	}
	d := make([]float64, 0, m*n)
	for _, xi := range x {
		for _, yj := range y {
			d = append(d, math.Log(yj)-math.Log(xi))
		}
	}
	sort.Float64s(d)
	mn := len(d)
	med := d[mn/2]
	if mn%2 == 0 {
		med = (d[mn/2-1] + d[mn/2]) / 2
	}
	k, _ := shiftRank(m, n, confidence)
	ok = k >= 1
	if k < 1 {
		k = 1
	}
	return math.Exp(med), math.Exp(d[k-1]), math.Exp(d[mn-k]), ok
}
