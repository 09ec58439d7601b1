package record

import (
	"fmt"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The range and precision of every latency histogram: values are
// nanoseconds, 1 µs to 1 h. A lowest value of 1 µs makes HdrHistogram's unit
// 512 ns, the power of two below it, and 3 significant digits ask for 2,048
// buckets of one unit: buckets are 512 ns wide up to 1,048,576 ns, and above
// it 1,024 to each doubling, each 1/2048 to 1/1024 of its values. So 3
// significant digits hold from 512 µs up; below, the step stays 512 ns,
// 0.9% of 56 µs. A percentile or maximum is the top of its bucket, up to
// 511 ns high below 1 ms.
const (
	lowest  = int64(time.Microsecond)
	highest = int64(time.Hour)
	sigfigs = 3
)

// NewHistogram returns an empty dense histogram with latlab's range and
// precision: 1 µs to 1 h, 512 ns steps up to 1,048,576 ns, 3 significant
// digits from 512 µs up.
func NewHistogram() *hdr.Histogram { return hdr.New(lowest, highest, sigfigs) }

// NewPacked returns an empty packed histogram with latlab's range and
// precision, for data kept after recording has finished.
func NewPacked() *hdr.PackedHistogram { return hdr.NewPacked(lowest, highest, sigfigs) }

// A packer keeps finished intervals' histograms, each in its V2 compressed
// encoding (see Kept): a run keeps one per interval for its whole length, so
// what each costs is what the run's memory grows by. It packs each into a
// scratch histogram whose storage it reuses and encodes that, so that only
// the encoding kept is allocated to last. The zero value is ready to use; it
// is not safe for concurrent use.
type packer struct {
	scratch *hdr.PackedHistogram
}

// keep returns h's counts kept encoded.
func (k *packer) keep(h *hdr.Histogram) Kept {
	if k.scratch == nil {
		k.scratch = NewPacked()
	}
	k.scratch.Reset()
	k.scratch.MergeFrom(h)
	// A packed histogram encodes into memory only, which cannot fail.
	b, _ := k.scratch.EncodeV2()
	return Kept{enc: b}
}

// recordDuration records d, clamped into the histogram's range so that no
// sample is ever dropped: a sub-µs value counts as 1 µs, anything past an
// hour as an hour.
func recordDuration(h *hdr.Histogram, d time.Duration) {
	v := int64(d)
	if v < lowest {
		v = lowest
	} else if v > highest {
		v = highest
	}
	_ = h.RecordValue(v) // in range by construction
}

// Quantile returns the value at quantile q (0 to 1) of h as a duration, and
// whether h holds enough samples for it to mean anything: at least 1/(1−q).
// The value is HdrHistogram's: the top of the bucket holding the sample of
// rank ⌊q·n + ½⌋ of n, which is one below nearest-rank's ⌈q·n⌉ when q·n
// has a fraction below ½ (p99.9 of 1,501 to 1,999 samples).
func Quantile(h interface {
	ValueAtPercentile(float64) int64
	TotalCount() int64
}, q float64) (time.Duration, bool) {
	n := h.TotalCount()
	if n == 0 || (q < 1 && float64(n) < 1/(1-q)-1e-9) {
		return 0, false
	}
	return time.Duration(h.ValueAtPercentile(q * 100)), true
}

// LowConfidence reports whether quantile q read from n samples rests on too
// few of them to be trusted without its interval: fewer than 10/(1−q).
func LowConfidence(n int64, q float64) bool {
	return q < 1 && float64(n) < 10/(1-q)-1e-9
}

// Bucketed is either form of HdrHistogram latlab holds: dense, as it
// records and as a Result holds the whole run's figures, or packed, as a
// Kept decodes.
type Bucketed interface {
	*hdr.Histogram | *hdr.PackedHistogram
}

// CountsDiff compares a and b bucket by bucket and returns "" when they
// are alike: the same range and precision, the same count in every
// bucket, and so the same total. Otherwise it says how they differ: the
// first few buckets that do, each by its lowest value, as "at 1.024ms:
// 3, 4" for 3 counts in a and 4 in b. A nil histogram is alike only to
// another nil one. Merge's histograms are the shards' summed, so that a
// merged histogram and one recorded from every request are alike.
func CountsDiff[A, B Bucketed](a A, b B) string {
	pa, pb := packed(a), packed(b)
	switch {
	case pa == nil && pb == nil:
		return ""
	case pa == nil || pb == nil:
		return fmt.Sprintf("one is nil: %v, %v", pa == nil, pb == nil)
	}
	if err := sameGeometry(pa, pb); err != nil {
		return err.Error()
	}
	type bucket struct{ value, count int64 }
	var ba, bb []bucket
	pa.ForEachBucket(func(v, c int64) bool { ba = append(ba, bucket{v, c}); return true })
	pb.ForEachBucket(func(v, c int64) bool { bb = append(bb, bucket{v, c}); return true })
	var diffs []string
	for i, j := 0, 0; (i < len(ba) || j < len(bb)) && len(diffs) < 3; {
		var x, y bucket
		switch {
		case j == len(bb) || i < len(ba) && ba[i].value < bb[j].value:
			x = ba[i]
			y.value = x.value
			i++
		case i == len(ba) || bb[j].value < ba[i].value:
			y = bb[j]
			x.value = y.value
			j++
		default:
			x, y = ba[i], bb[j]
			i++
			j++
		}
		if x.count != y.count {
			diffs = append(diffs, fmt.Sprintf("at %s: %d, %d", time.Duration(x.value), x.count, y.count))
		}
	}
	if len(diffs) == 0 && pa.TotalCount() != pb.TotalCount() {
		diffs = append(diffs, fmt.Sprintf("totals %d, %d", pa.TotalCount(), pb.TotalCount()))
	}
	return strings.Join(diffs, "; ")
}

// packed returns h as a packed histogram, nil for nil.
func packed[H Bucketed](h H) *hdr.PackedHistogram {
	switch h := any(h).(type) {
	case *hdr.Histogram:
		if h == nil {
			return nil
		}
		p := hdr.NewPacked(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		p.MergeFrom(h)
		return p
	case *hdr.PackedHistogram:
		return h
	}
	return nil
}
