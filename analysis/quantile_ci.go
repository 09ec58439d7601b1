package analysis

import (
	"math"
	"time"
)

// QuantileCI returns the distribution-free 95% interval of quantile q
// (0 < q < 1) of one run's histogram h: the two order statistics that
// bracket it, as a low-confidence Value carries them, from any number of
// samples. A bound no order statistic reaches at that level is the
// smallest (loOpen) or largest (hiOpen) value recorded instead: too few
// samples for a bound on that side. An empty histogram, or q outside
// (0, 1), has no interval: zeros, both open.
func QuantileCI(h Histogram, q float64) (lo, hi time.Duration, loOpen, hiOpen bool) {
	if h == nil || h.TotalCount() == 0 || !(q > 0 && q < 1) {
		return 0, 0, true, true
	}
	n := int(h.TotalCount())
	l, u := quantileRanks(n, q)
	lo, hi, _ = interval(h, q)
	return lo, hi, l < 1, u > n
}

// RatioCI returns the Wilson score 95% interval of a proportion: k of n
// trials, such as failed requests of those completed. It keeps within
// [0, 1] and holds its coverage near 0 and 1, where the normal
// approximation's does not. With no trials it is [0, 1].
func RatioCI(k, n int64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	k = min(max(k, 0), n)
	z := math.Sqrt2 * math.Erfinv(confidence) // 1.96
	nf := float64(n)
	p := float64(k) / nf
	z2n := z * z / nf
	centre := (p + z2n/2) / (1 + z2n)
	half := z / (1 + z2n) * math.Sqrt(p*(1-p)/nf+z2n/(4*nf))
	lo, hi = max(centre-half, 0), min(centre+half, 1)
	// At k = 0 and k = n a bound is exactly 0 or 1; rounding must not
	// make it a hair above 0 and break a limit of 0%.
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}
