package analysis

import (
	"math"
	"slices"
)

// exactU is the largest m·n for which the Mann-Whitney distribution is
// counted exactly; beyond it the normal approximation is used.
const exactU = 40_000

// uLowerTail returns P(U ≤ k) under the null hypothesis for the
// Mann-Whitney statistic of samples of m and n distinct values, for every
// k up to limit. The number of arrangements with U = k is the coefficient
// of q^k in the Gaussian binomial [m+n choose m]_q, built as the product of
// (1−q^(n+i))/(1−q^i) for i = 1..m. Only the coefficients up to limit are
// kept; those are small integers, so the float64 arithmetic is exact.
func uLowerTail(m, n, limit int) []float64 {
	c := make([]float64, limit+1)
	c[0] = 1
	for i := 1; i <= m; i++ {
		for k := limit; k >= n+i; k-- { // × (1 − q^(n+i))
			c[k] -= c[k-n-i]
		}
		for k := i; k <= limit; k++ { // ÷ (1 − q^i)
			c[k] += c[k-i]
		}
	}
	total := math.Exp(lchoose(m+n, m))
	cum := 0.0
	for k := range c {
		cum += c[k]
		c[k] = cum / total
	}
	return c
}

// shiftRank returns the rank k (1-based) of the sorted pairwise differences
// whose pair [d(k), d(mn+1−k)] is the narrowest interval for a location
// shift with confidence at least level, and the weight w of d(k) when
// interpolating towards d(k+1) to reach level (w = 1: no interpolation).
// k is 0 when the samples are too small for any interval at that level.
func shiftRank(m, n int, level float64) (k int, w float64) {
	mn := m * n
	if mn > exactU {
		sd := math.Sqrt(float64(mn) * float64(m+n+1) / 12)
		k = int(math.Floor(float64(mn)/2 - zTwoSided(level)*sd))
		return max(k, 0), 1
	}
	return straddle(uLowerTail(m, n, mn/2), mn, level)
}

// zTwoSided is the standard normal quantile that leaves (1−level)/2 in
// each tail: 1.96 at 95%.
func zTwoSided(level float64) float64 {
	return math.Sqrt2 * math.Erfinv(level)
}

// straddle returns, from cdf[s] = P(S ≤ s) of a rank statistic S
// symmetric on 0..total, the rank k (1-based) of the order statistics
// [x(k), x(total+1−k)] that bound an interval at level, and the weight of
// x(k) against x(k+1) that interpolates to level; k is 0 when no rank
// reaches it.
func straddle(cdf []float64, total int, level float64) (k int, w float64) {
	tail := (1 - level) / 2
	for k < len(cdf) && cdf[k] <= tail {
		k++
	}
	if k == 0 {
		return 0, 0
	}
	// The exact levels of ranks k and k+1 straddle level: 1−2·cdf[k−1] ≥
	// level > 1−2·cdf[k]. Interpolate between them linearly in the level.
	if k >= len(cdf) || 2*k >= total {
		return k, 1
	}
	above, below := 1-2*cdf[k-1], 1-2*cdf[k]
	return k, (level - below) / (above - below)
}

// bounds returns the interval of rank k and weight w (from straddle) in
// the sorted values s.
func bounds(s []float64, k int, w float64) (lo, hi float64) {
	last := len(s) - 1
	return w*s[k-1] + (1-w)*s[k], w*s[last-k+1] + (1-w)*s[last-k]
}

// HodgesLehmann returns the Hodges–Lehmann estimate of the shift of x
// against y, the median of all differences x_i − y_j, and its 95% interval
// from the exact Mann-Whitney distribution (Bauer 1972; normal
// approximation beyond 40,000 pairs). The exact intervals [d(k),
// d(mn+1−k)] come in discrete levels (96.8% or 94.4% for 5 against 5), so
// the bounds are interpolated linearly between the two ranks whose levels
// straddle 95%, as Hettmansperger and Sheather do for the median: the
// simulation tests show coverage close to 95% from 5 runs a side, where
// the next exact level above would give 97–98%. ok is false when the
// samples are too small for any 95% interval (fewer than 4 values on each
// side, 3 against 7, ...). Ties make the interval slightly conservative.
func HodgesLehmann(x, y []float64) (shift, lo, hi float64, ok bool) {
	if len(x) == 0 || len(y) == 0 {
		return math.NaN(), 0, 0, false
	}
	d := differences(x, y)
	lo, hi, ok = shiftInterval(d, len(x), len(y), confidence)
	return sortedMedian(d), lo, hi, ok
}

// differences returns every x_i − y_j, sorted.
func differences(x, y []float64) []float64 {
	d := make([]float64, 0, len(x)*len(y))
	for _, a := range x {
		for _, b := range y {
			d = append(d, a-b)
		}
	}
	slices.Sort(d)
	return d
}

// sortedMedian is the median of the sorted, non-empty s.
func sortedMedian(s []float64) float64 {
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// shiftInterval returns the interval at level of the Hodges–Lehmann shift
// from the sorted differences d of samples of m and n values, as
// HodgesLehmann does at 95%; ok is false when no rank reaches level.
func shiftInterval(d []float64, m, n int, level float64) (lo, hi float64, ok bool) {
	k, w := shiftRank(m, n, level)
	if k == 0 {
		return 0, 0, false
	}
	lo, hi = bounds(d, k, w)
	return lo, hi, true
}
