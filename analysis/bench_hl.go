package analysis

import (
	"math"
	"sort"
)

// hodgesLehmannRatio estimates the ratio new/old as the median of all
// pairwise ratios y_j/x_i (the Hodges–Lehmann shift on log scale) and
// bounds it with the distribution-free interval that inverts the
// Mann-Whitney U test: with k the largest integer such that
// P(U < k) ≤ (1−confidence)/2 under the null, the interval is the k-th
// smallest and k-th largest pairwise ratio. The U distribution is exact
// for samples of up to 50 values each and the normal approximation
// beyond. ok is false when a value is not positive or the samples are
// too small for any interval at this confidence; then the bounds are the
// smallest and largest pairwise ratio.
func hodgesLehmannRatio(x, y []float64, confidence float64) (est, lo, hi float64, ok bool) {
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
	k := uCritical(m, n, (1-confidence)/2)
	ok = k >= 1
	if k < 1 {
		k = 1
	}
	return math.Exp(med), math.Exp(d[k-1]), math.Exp(d[mn-k]), ok
}

// uCritical returns the largest k with P(U ≤ k−1) ≤ tail for the
// Mann-Whitney statistic U of samples of sizes m and n without ties.
func uCritical(m, n int, tail float64) int {
	if m > 50 || n > 50 {
		mu := float64(m*n) / 2
		sd := math.Sqrt(float64(m*n*(m+n+1)) / 12)
		z := math.Sqrt2 * math.Erfinv(1-2*tail)
		k := int(math.Floor(mu - z*sd + 0.5))
		return max(k, 0)
	}
	cdf := 0.0
	pmf := uPMF(m, n)
	k := 0
	for u, p := range pmf {
		cdf += p
		if cdf > tail*(1+1e-12) {
			break
		}
		k = u + 1
	}
	return k
}

// uPMF returns P(U = u) for u = 0…m·n under the null hypothesis, from
// the recurrence p(m,n,u) = m/(m+n)·p(m−1,n,u−n) + n/(m+n)·p(m,n−1,u).
func uPMF(m, n int) []float64 {
	// prev[j] holds the distribution for sizes (i−1, j); cur for (i, j).
	prev := make([][]float64, n+1)
	for j := range prev {
		prev[j] = []float64{1} // m = 0: U is always 0
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1}
		for j := 1; j <= n; j++ {
			p := make([]float64, i*j+1)
			a, b := float64(i)/float64(i+j), float64(j)/float64(i+j)
			for u, v := range prev[j] { // one fewer x: it is above all j y's
				p[u+j] += a * v
			}
			for u, v := range cur[j-1] {
				p[u] += b * v
			}
			cur[j] = p
		}
		prev = cur
	}
	return prev[n]
}
