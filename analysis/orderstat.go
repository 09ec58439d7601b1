package analysis

import (
	"math"
	"slices"
)

// confidence is the level of every interval in this package.
const confidence = 0.95

// exactRanks is the largest n for which quantileRanks sums the binomial
// exactly; above it the normal approximation is as good.
const exactRanks = 20_000

// quantileRanks returns the 1-based ranks l and u of the distribution-free
// 95% interval [x(l), x(u)] for quantile q of n samples: l is the largest
// rank with P(B < l) ≤ 2.5% and u the smallest with P(B ≥ u) ≤ 2.5%, B ~
// Binomial(n, q). l is 0 when no order statistic bounds the quantile from
// below at that level, and u is n+1 when none bounds it from above.
func quantileRanks(n int, q float64) (l, u int) {
	tail := (1 - confidence) / 2
	if n > exactRanks {
		z := 1.959963984540054 * math.Sqrt(float64(n)*q*(1-q))
		l = int(math.Floor(float64(n)*q - z))
		u = int(math.Ceil(float64(n)*q+z)) + 1
		return max(l, 0), min(u, n+1)
	}
	// One pass over the binomial's terms, each from the last one, rather
	// than a fresh sum per rank: O(n), not O(n²).
	cdf, sf := binomTails(n, q)
	l = 0
	for l < n && cdf[l] <= tail { // P(B ≤ l) = P(B < l+1)
		l++
	}
	u = n + 1
	for u > 1 && sf[u-1] <= tail { // P(B ≥ u−1)
		u--
	}
	return l, u
}

// binomTails returns, for B ~ Binomial(n, p) with 0 < p < 1, cdf[k] =
// P(B ≤ k) and sf[k] = P(B ≥ k) for k in 0..n, each summed from its own
// tail so that neither loses precision to 1 − x.
func binomTails(n int, p float64) (cdf, sf []float64) {
	lpmf := make([]float64, n+1)
	lp, lq := math.Log(p), math.Log1p(-p)
	lpmf[0] = float64(n) * lq
	for j := 0; j < n; j++ {
		lpmf[j+1] = lpmf[j] + math.Log(float64(n-j)) - math.Log(float64(j+1)) + lp - lq
	}
	cdf, sf = make([]float64, n+1), make([]float64, n+1)
	sum := 0.0
	for j := 0; j <= n; j++ {
		sum += math.Exp(lpmf[j])
		cdf[j] = math.Min(sum, 1)
	}
	sum = 0
	for j := n; j >= 0; j-- {
		sum += math.Exp(lpmf[j])
		sf[j] = math.Min(sum, 1)
	}
	return cdf, sf
}

// MedianCI returns the median of xs and its distribution-free 95%
// interval: the order statistics x(k) and x(n+1−k), with k the largest rank
// such that a Binomial(n, ½) falls below k with probability at most 2.5%.
// It holds its coverage for any continuous distribution. ok is false when
// no such k exists, that is for fewer than 6 values: the interval is then
// n/a, not the range. A median of no values is NaN.
func MedianCI(xs []float64) (median, lo, hi float64, ok bool) {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN(), 0, 0, false
	}
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	k, _ := quantileRanks(n, 0.5)
	if k < 1 {
		return median, 0, 0, false
	}
	return median, s[k-1], s[n-k], true
}

// Median returns the median of xs, NaN when there are none; xs is left
// as it is.
func Median(xs []float64) float64 {
	m, _, _, _ := MedianCI(xs)
	return m
}

// lchoose returns log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
