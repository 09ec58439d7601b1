package probe

import (
	"math"
	"slices"
	"sort"
	"strconv"
)

// Bucket is one cumulative bucket of a classic Prometheus histogram: Count
// observations (or, after a rate, observations per second) were at most
// UpperBound. A complete histogram has a bucket with UpperBound +Inf.
type Bucket struct {
	UpperBound float64
	Count      float64
}

// smallDeltaTolerance is the relative difference between neighbouring bucket
// counts that PromQL treats as floating-point noise and irons out
// (promql.smallDeltaTolerance).
const smallDeltaTolerance = 1e-12

// minNormal is the smallest positive normal float64 (util/almost in Prometheus).
var minNormal = math.Float64frombits(0x0010000000000000)

// Quantile returns the q-quantile of buckets as PromQL's histogram_quantile
// computes it for a classic histogram (promql.BucketQuantile): the buckets are
// sorted, buckets with equal upper bounds summed, counts made monotonic
// (differences below a relative 1e-12 ignored, decreases flattened), and the
// quantile interpolated linearly inside the bucket its rank falls in. The
// lowest bucket interpolates from 0 when its upper bound is positive and
// otherwise yields that upper bound; a rank in the +Inf bucket yields the
// highest finite upper bound.
//
// Special cases, all as in Prometheus: NaN for q NaN, -Inf for q < 0, +Inf for
// q > 1, NaN without a +Inf bucket, with fewer than two buckets, or with no
// observations. Quantile does not modify buckets.
func Quantile(q float64, buckets []Bucket) float64 {
	if v, special := outOfRange(q); special {
		return v
	}
	var buf [64]Bucket
	b, ok := normalize(append(buf[:0], buckets...))
	if !ok {
		return math.NaN()
	}
	return quantileOf(q, b)
}

// P100 returns the upper bound of the highest bucket whose own count is above
// zero: the largest value the histogram can vouch for. When that bucket is the
// +Inf bucket it returns the highest finite upper bound, as Quantile(1, …)
// does; it is NaN in the same cases as Quantile. Fed the rates of a window it
// is the p100 of that window. P100 does not modify buckets.
func P100(buckets []Bucket) float64 {
	var buf [64]Bucket
	b, ok := normalize(append(buf[:0], buckets...))
	if !ok {
		return math.NaN()
	}
	return p100Of(b)
}

// normalize does, in place, what BucketQuantile does to its input before
// searching: sort by upper bound, require +Inf last, merge equal bounds,
// force monotonic counts. It reports false when no quantile exists.
func normalize(b []Bucket) ([]Bucket, bool) {
	if len(b) == 0 {
		return b, false
	}
	slices.SortFunc(b, func(x, y Bucket) int {
		switch {
		case x.UpperBound < y.UpperBound:
			return -1
		case x.UpperBound > y.UpperBound:
			return +1
		}
		return 0
	})
	if !math.IsInf(b[len(b)-1].UpperBound, +1) {
		return b, false
	}
	b = coalesce(b)
	monotonic(b)
	return b, len(b) >= 2
}

// coalesce merges buckets with the same upper bound; b must be sorted.
func coalesce(b []Bucket) []Bucket {
	last, i := b[0], 0
	for _, x := range b[1:] {
		if x.UpperBound == last.UpperBound {
			last.Count += x.Count
			continue
		}
		b[i] = last
		last = x
		i++
	}
	b[i] = last
	return b[:i+1]
}

// monotonic removes numerically insignificant differences between neighbours
// in either direction, then any decrease, always comparing with the last
// count it accepted (ensureMonotonicAndIgnoreSmallDeltas in Prometheus).
func monotonic(b []Bucket) {
	prev := b[0].Count
	for i := 1; i < len(b); i++ {
		cur := b[i].Count
		switch {
		case cur == prev:
		case almostEqual(prev, cur, smallDeltaTolerance), cur < prev:
			b[i].Count = prev
		default:
			prev = cur
		}
	}
}

// almostEqual reports whether a and b differ by less than epsilon relative to
// their magnitude (util/almost.Equal in Prometheus).
func almostEqual(a, b, epsilon float64) bool {
	if math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	if a == b {
		return true
	}
	absSum := math.Abs(a) + math.Abs(b)
	diff := math.Abs(a - b)
	if a == 0 || b == 0 || absSum < minNormal {
		return diff < epsilon*minNormal
	}
	return diff/math.Min(absSum, math.MaxFloat64) < epsilon
}

// quantileOf is BucketQuantile's search and interpolation over normalized
// buckets.
func quantileOf(q float64, b []Bucket) float64 {
	observations := b[len(b)-1].Count
	if observations == 0 {
		return math.NaN()
	}
	rank := q * observations
	i := sort.Search(len(b)-1, func(i int) bool { return b[i].Count >= rank })
	if i == len(b)-1 {
		return b[len(b)-2].UpperBound
	}
	if i == 0 && b[0].UpperBound <= 0 {
		return b[0].UpperBound
	}
	var (
		start float64
		end   = b[i].UpperBound
		count = b[i].Count
	)
	if i > 0 {
		start = b[i-1].UpperBound
		count -= b[i-1].Count
		rank -= b[i-1].Count
	}
	return start + (end-start)*(rank/count)
}

// p100Of finds the bucket quantileOf(1, b) would land in and returns its upper
// bound without interpolating, so no rounding creeps in.
func p100Of(b []Bucket) float64 {
	observations := b[len(b)-1].Count
	if observations == 0 {
		return math.NaN()
	}
	i := sort.Search(len(b)-1, func(i int) bool { return b[i].Count >= observations })
	if i == len(b)-1 {
		return b[len(b)-2].UpperBound
	}
	return b[i].UpperBound
}

// BucketLow and BucketHigh end the names of the series that hold the
// bounds of the classic bucket a windowed quantile fell in:
// "x:p99" + BucketLow is the lower bound of p99's bucket.
const (
	BucketLow  = ":bucket_lo"
	BucketHigh = ":bucket_hi"
)

// bucketOf returns the bounds of the bucket of normalized buckets b that
// the rank of quantile q falls in, the bucket quantileOf interpolates in:
// (lo, hi]. The lowest bucket's lower bound is 0, as quantileOf takes it,
// unless its upper bound is not positive; hi is +Inf in the +Inf bucket.
// ok is false when b holds no observations.
func bucketOf(q float64, b []Bucket) (lo, hi float64, ok bool) {
	observations := b[len(b)-1].Count
	if !(observations > 0) {
		return 0, 0, false
	}
	rank := q * observations
	i := sort.Search(len(b)-1, func(i int) bool { return b[i].Count >= rank })
	if i > 0 && almostEqual(rank, b[i-1].Count, 1e-9) {
		// A rank on a bucket's cumulative count is that bucket's, even
		// when q · observations rounds a hair above it; the interpolated
		// quantile is the bound they share either way.
		i--
	}
	switch {
	case i == 0 && b[0].UpperBound <= 0:
		return b[0].UpperBound, b[0].UpperBound, true
	case i == 0:
		return 0, b[0].UpperBound, true
	}
	return b[i-1].UpperBound, b[i].UpperBound, true
}

// quantileName names the series of quantile q: 0.5 → "p50", 0.999 → "p99.9".
func quantileName(q float64) string {
	return "p" + strconv.FormatFloat(math.Round(q*1e6)/1e4, 'f', -1, 64)
}

// nativeQuantile returns the q-quantile of the buckets of a native
// histogram holding count observations, as PromQL's histogram_quantile
// computes it for one (promql.HistogramQuantile): the rank is q·count,
// counted from the lowest bucket for q < 0.5 and as (1−q)·count from the
// highest one otherwise, skipping empty buckets. Inside the bucket it falls
// in the quantile is interpolated exponentially, that is linearly in the
// logarithm of the value, since the bucket boundaries are linear there: the
// middle of (1, 2] is √2. In the zero bucket it is interpolated linearly.
//
// When the buckets hold fewer observations than count (NaN observations are
// counted but have no bucket), the rank is always counted from the lowest
// bucket, and a rank past the highest yields that bucket's upper bound.
// Unlike Prometheus, a bucket with an infinite bound (for observations of
// ±Inf) yields its finite bound rather than ±Inf, as the +Inf bucket of a
// classic histogram does. It is NaN when no bucket holds an observation, and
// follows Quantile for q NaN, below 0 or above 1. buckets are ascending, as
// nativeHist.ranges returns them.
func nativeQuantile(q float64, buckets []bucketRange, count float64) float64 {
	if v, special := outOfRange(q); special {
		return v
	}
	var inBuckets float64
	for _, b := range buckets {
		inBuckets += b.count
	}
	if !(inBuckets > 0) {
		return math.NaN()
	}
	if !(count > 0) {
		count = inBuckets
	}
	forward := q < 0.5 || (inBuckets < count && !almostEqual(inBuckets, count, smallDeltaTolerance))
	var (
		b          bucketRange
		rank, seen float64
	)
	if forward {
		rank = q * count
		for _, x := range buckets {
			if x.count == 0 {
				continue
			}
			b = x
			if seen += x.count; seen >= rank {
				break
			}
		}
	} else {
		rank = (1 - q) * count
		for i := len(buckets) - 1; i >= 0; i-- {
			if buckets[i].count == 0 {
				continue
			}
			b = buckets[i]
			if seen += b.count; seen >= rank {
				break
			}
		}
	}
	seen = min(seen, count)
	if seen < rank {
		return finiteBound(b.upper, b.lower)
	}
	if forward {
		rank -= seen - b.count
	} else {
		rank = seen - rank
	}
	fraction := rank / b.count
	switch {
	case math.IsInf(b.upper, +1):
		return b.lower
	case math.IsInf(b.lower, -1):
		return b.upper
	case b.lower <= 0 && b.upper >= 0:
		return b.lower + (b.upper-b.lower)*fraction
	}
	logLower, logUpper := math.Log2(math.Abs(b.lower)), math.Log2(math.Abs(b.upper))
	if b.lower > 0 {
		return math.Exp2(logLower + (logUpper-logLower)*fraction)
	}
	return -math.Exp2(logUpper + (logLower-logUpper)*(1-fraction))
}

// nativeP100 returns the upper bound of the highest native bucket holding
// an observation: fed the rates of a window, the highest bucket that grew in
// it. For the bucket of +Inf observations it is that bucket's lower bound,
// math.MaxFloat64. It is NaN without observations.
func nativeP100(buckets []bucketRange) float64 {
	for i := len(buckets) - 1; i >= 0; i-- {
		if b := buckets[i]; b.count > 0 {
			return finiteBound(b.upper, b.lower)
		}
	}
	return math.NaN()
}

// finiteBound returns bound unless it is infinite, and else the other bound.
func finiteBound(bound, other float64) float64 {
	if math.IsInf(bound, 0) {
		return other
	}
	return bound
}

// outOfRange gives Prometheus's answer for a q that is no quantile: NaN
// for NaN, -Inf below 0, +Inf above 1; special is false for 0 ≤ q ≤ 1.
func outOfRange(q float64) (v float64, special bool) {
	switch {
	case math.IsNaN(q):
		return math.NaN(), true
	case q < 0:
		return math.Inf(-1), true
	case q > 1:
		return math.Inf(+1), true
	}
	return 0, false
}
