package probe

import (
	"cmp"
	"math"
	"slices"

	dto "github.com/prometheus/client_model/go"
)

// The schemas of exponential native histograms: bucket boundaries grow by
// 2^(2^-schema), from 65536 at -4 to about 1.0027 at 8.
const (
	minNativeSchema = -4
	maxNativeSchema = 8
)

// maxNativeIndex bounds the bucket indexes accepted from a target. Every
// finite float64 falls in a bucket within ±280,000 at schema 8; a larger
// index can only come from a malformed exposition.
const maxNativeIndex = 1 << 24

// nativeHist is a native (sparse, exponential) histogram: its zero bucket
// and its populated positive and negative buckets, by ascending index. The
// counts are observations as scraped, or observations per second once rated
// over a window. Positive bucket i holds (nativeBound(i-1), nativeBound(i)],
// negative bucket i the mirror image [-nativeBound(i), -nativeBound(i-1)),
// and the zero bucket [-zeroThreshold, zeroThreshold].
type nativeHist struct {
	schema        int32
	zeroThreshold float64
	zeroCount     float64
	count         float64 // all observations, NaN ones included
	pos, neg      []nativeBucket
}

// nativeBucket is one populated bucket of a nativeHist.
type nativeBucket struct {
	index int32
	count float64
}

// isNative reports whether h carries native buckets: a schema, bucket spans
// or a zero bucket. The last two are Prometheus's own test; a histogram
// client_golang exposes with native buckets always has a schema.
func isNative(h *dto.Histogram) bool {
	return h.Schema != nil || len(h.GetPositiveSpan()) > 0 || len(h.GetNegativeSpan()) > 0 ||
		h.GetZeroThreshold() > 0 || h.GetZeroCount() > 0 || h.GetZeroCountFloat() > 0
}

// decodeNative fills n with h's native buckets, reusing n's slices. It
// reports false when h has none, or has ones this package cannot read: a
// schema outside -4…8 (such as custom buckets), a bad zero threshold, spans
// that do not match the counts, or a negative count. Such a histogram is
// read from its classic buckets.
func decodeNative(h *dto.Histogram, n *nativeHist) bool {
	if h == nil || !isNative(h) {
		return false
	}
	schema, zt := h.GetSchema(), h.GetZeroThreshold()
	if schema < minNativeSchema || schema > maxNativeSchema || !(zt >= 0) || math.IsInf(zt, 0) {
		return false
	}
	n.schema, n.zeroThreshold = schema, zt
	n.zeroCount = h.GetZeroCountFloat()
	if n.zeroCount == 0 {
		n.zeroCount = float64(h.GetZeroCount())
	}
	n.count = sampleCount(h)
	if !(n.zeroCount >= 0) || math.IsInf(n.zeroCount, 0) || !(n.count >= 0) {
		return false
	}
	var ok bool
	if n.pos, ok = decodeSpans(n.pos[:0], h.GetPositiveSpan(), h.GetPositiveDelta(), h.GetPositiveCount()); !ok {
		return false
	}
	n.neg, ok = decodeSpans(n.neg[:0], h.GetNegativeSpan(), h.GetNegativeDelta(), h.GetNegativeCount())
	return ok
}

// decodeSpans appends the populated buckets that spans and either deltas
// (integer counts, each relative to the previous bucket's) or counts (float
// histograms) describe. The first span's offset is the index of its first
// bucket, every later offset the gap after the span before it.
func decodeSpans(dst []nativeBucket, spans []*dto.BucketSpan, deltas []int64, counts []float64) ([]nativeBucket, bool) {
	n := len(deltas)
	if len(counts) > 0 {
		if n > 0 {
			return dst, false
		}
		n = len(counts)
	}
	total := 0
	for _, sp := range spans {
		total += int(sp.GetLength())
		if total > n {
			return dst, false
		}
	}
	if total != n {
		return dst, false
	}
	var index, running int64
	k := 0
	for i, sp := range spans {
		if i > 0 && sp.GetOffset() < 0 {
			return dst, false
		}
		index += int64(sp.GetOffset())
		if index < -maxNativeIndex || index+int64(sp.GetLength()) > maxNativeIndex {
			return dst, false
		}
		for range sp.GetLength() {
			var c float64
			if len(deltas) > 0 {
				d := deltas[k]
				if (d > 0 && running > math.MaxInt64-d) || running+d < 0 {
					return dst, false
				}
				running += d
				c = float64(running)
			} else {
				c = counts[k]
				if !(c >= 0) || math.IsInf(c, 0) {
					return dst, false
				}
			}
			if c > 0 {
				dst = append(dst, nativeBucket{int32(index), c})
			}
			index++
			k++
		}
	}
	return dst, true
}

// nativeBound returns the upper bound of positive bucket index at schema,
// 2^(index·2^−schema): 1 for index 0 at every schema, and the same float64
// for the same boundary at every schema. client_golang and Prometheus take
// the mantissas from tables that differ from this by a few ulps at most. The
// bucket just below the one for ±Inf observations ends at math.MaxFloat64,
// not at the +Inf the formula gives, as in Prometheus; bounds below the
// smallest float64 are 0. schema must be in -4…8.
func nativeBound(index, schema int32) float64 {
	var frac float64
	var exp int
	if schema <= 0 {
		frac, exp = 0.5, int(index)<<-schema+1
	} else {
		// frac is in [0.5, 1): 0.5 exactly at powers of two.
		frac = math.Exp2(float64(index&(1<<schema-1))/float64(int32(1)<<schema) - 1)
		exp = int(index>>schema) + 1
	}
	if frac == 0.5 && exp == 1025 {
		return math.MaxFloat64
	}
	return math.Ldexp(frac, exp)
}

// reduceIndex returns the index, d schemas lower, of the bucket that holds
// bucket index: every 2^d neighbours merge into one.
func reduceIndex(index, d int32) int32 {
	return (index-1)>>d + 1
}

// reduce lowers h to schema, merging buckets; schema must not be above h's.
func (h *nativeHist) reduce(schema int32) {
	if d := h.schema - schema; d > 0 {
		h.pos = reduceBuckets(h.pos, d)
		h.neg = reduceBuckets(h.neg, d)
		h.schema = schema
	}
}

// reduceBuckets maps sorted buckets d schemas down, in place, summing those
// that merge; they stay sorted because reduceIndex does not decrease.
func reduceBuckets(b []nativeBucket, d int32) []nativeBucket {
	out := b[:0]
	for _, x := range b {
		x.index = reduceIndex(x.index, d)
		if k := len(out); k > 0 && out[k-1].index == x.index {
			out[k-1].count += x.count
			continue
		}
		out = append(out, x)
	}
	return out
}

// widenZero raises h's zero threshold to zt, moving the buckets that lie
// wholly within it into the zero bucket; a lower zt changes nothing. A
// bucket that straddles zt stays, and counts from zt upwards.
func (h *nativeHist) widenZero(zt float64) {
	if zt > h.zeroThreshold {
		h.zeroThreshold = zt
		h.sweepZero()
	}
}

// sweepZero moves the buckets that lie wholly within the zero threshold
// into the zero bucket.
func (h *nativeHist) sweepZero() {
	var moved, more float64
	h.pos, moved = dropWithin(h.pos, h.schema, h.zeroThreshold)
	h.neg, more = dropWithin(h.neg, h.schema, h.zeroThreshold)
	h.zeroCount += moved + more
}

// dropWithin removes, from sorted buckets, those whose bound does not exceed
// zt, and returns what they held.
func dropWithin(b []nativeBucket, schema int32, zt float64) ([]nativeBucket, float64) {
	i, sum := 0, 0.0
	for i < len(b) && nativeBound(b[i].index, schema) <= zt {
		sum += b[i].count
		i++
	}
	if i == 0 {
		return b, 0
	}
	return append(b[:0], b[i:]...), sum
}

// sum sets h to the sum of parts at their lowest schema and widest zero
// bucket, as Prometheus adds native histograms; parts must not be empty.
func (h *nativeHist) sum(parts []*nativeHist) {
	h.schema, h.zeroThreshold = parts[0].schema, parts[0].zeroThreshold
	for _, p := range parts[1:] {
		h.schema = min(h.schema, p.schema)
		h.zeroThreshold = max(h.zeroThreshold, p.zeroThreshold)
	}
	h.zeroCount, h.count = 0, 0
	h.pos, h.neg = h.pos[:0], h.neg[:0]
	for _, p := range parts {
		h.zeroCount += p.zeroCount
		h.count += p.count
		d := p.schema - h.schema
		for _, b := range p.pos {
			h.pos = append(h.pos, nativeBucket{reduceIndex(b.index, d), b.count})
		}
		for _, b := range p.neg {
			h.neg = append(h.neg, nativeBucket{reduceIndex(b.index, d), b.count})
		}
	}
	if len(parts) > 1 {
		h.pos = sortBuckets(h.pos)
		h.neg = sortBuckets(h.neg)
		h.sweepZero()
	}
}

// sortBuckets sorts b by index and sums buckets with the same index.
func sortBuckets(b []nativeBucket) []nativeBucket {
	slices.SortFunc(b, func(x, y nativeBucket) int { return cmp.Compare(x.index, y.index) })
	return reduceBuckets(b, 0)
}

// bucketRange is one bucket of a native histogram with its bounds.
type bucketRange struct {
	lower, upper, count float64
}

// ranges appends h's non-empty buckets with their bounds, from the lowest
// value to the highest. As in Prometheus, the zero bucket starts at 0 when
// the histogram has positive buckets but no negative ones, and ends at 0 in
// the mirror case; a bucket straddling the zero threshold counts from it.
func (h *nativeHist) ranges(dst []bucketRange) []bucketRange {
	zt := h.zeroThreshold
	for i := len(h.neg) - 1; i >= 0; i-- {
		b := h.neg[i]
		if b.count > 0 {
			dst = append(dst, bucketRange{-nativeBound(b.index, h.schema), -max(nativeBound(b.index-1, h.schema), zt), b.count})
		}
	}
	if h.zeroCount > 0 {
		z := bucketRange{-zt, zt, h.zeroCount}
		switch {
		case len(h.neg) == 0 && len(h.pos) > 0:
			z.lower = 0
		case len(h.pos) == 0 && len(h.neg) > 0:
			z.upper = 0
		}
		dst = append(dst, z)
	}
	for _, b := range h.pos {
		if b.count > 0 {
			dst = append(dst, bucketRange{max(nativeBound(b.index-1, h.schema), zt), nativeBound(b.index, h.schema), b.count})
		}
	}
	return dst
}
