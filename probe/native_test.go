package probe

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

func TestNativeBoundByHand(t *testing.T) {
	tests := []struct {
		index, schema int32
		want          float64
	}{
		{0, 0, 1}, {0, 3, 1}, {0, 8, 1}, {0, -4, 1},
		{1, 0, 2}, {-1, 0, 0.5}, {10, 0, 1024},
		{1, -1, 4}, {1, -4, 65536}, {-1, -4, 1. / 65536}, {2, -2, 256},
		{8, 3, 2}, {-8, 3, 0.5}, {16, 3, 4}, {4, 3, math.Sqrt2}, {-4, 3, 1 / math.Sqrt2},
		{1, 1, math.Sqrt2}, {128, 8, math.Sqrt2}, {-256, 8, 0.5},
		// 2^(1/8) and 2^(-3/8), as client_golang's tables and Prometheus's
		// hold them (to within the test's 1e-12).
		{1, 3, 1.0905077326652577}, {-3, 3, 0.7711054127039704},
		// The last bucket for finite values ends at MaxFloat64; the one
		// above it, for ±Inf observations, at +Inf.
		{1024, 0, math.MaxFloat64}, {1025, 0, inf},
		{64, -4, math.MaxFloat64}, {65, -4, inf},
		{8192, 3, math.MaxFloat64}, {8193, 3, inf},
		{1023 * 8, 3, 0x1p1023},
		// Below the smallest float64, the bounds are 0.
		{-1074, 0, 0x1p-1074}, {-1076, 0, 0}, {-1 << 20, 8, 0},
	}
	for _, tt := range tests {
		if got := nativeBound(tt.index, tt.schema); !near(got, tt.want) {
			t.Errorf("nativeBound(%d, %d) = %v, want %v", tt.index, tt.schema, got, tt.want)
		}
	}
}

// TestNativeBoundSchemas checks, for every schema, that bounds grow by the
// schema's factor, that powers of two are exact, that every bound of a
// schema is the same float64 as the bound it coincides with one schema up,
// and that reduceIndex puts a bucket inside the lower schema's bucket that
// holds it.
func TestNativeBoundSchemas(t *testing.T) {
	for schema := int32(minNativeSchema); schema <= maxNativeSchema; schema++ {
		factor := math.Exp2(math.Exp2(-float64(schema)))
		span := int32(1000) >> max(0, -schema)
		if schema > 0 {
			for k := int32(-60); k <= 60; k++ {
				if got := nativeBound(k<<schema, schema); got != math.Ldexp(1, int(k)) {
					t.Fatalf("nativeBound(%d, %d) = %v, want 2^%d exactly", k<<schema, schema, got, k)
				}
			}
		}
		for i := -span; i <= span; i++ {
			lo, hi := nativeBound(i-1, schema), nativeBound(i, schema)
			if !(lo < hi) || math.Abs(hi/lo-factor) > 1e-12*factor {
				t.Fatalf("schema %d bucket %d: (%v, %v], want bounds %v apart", schema, i, lo, hi, factor)
			}
			if schema < maxNativeSchema {
				if up := nativeBound(2*i, schema+1); up != hi {
					t.Fatalf("schema %d bucket %d ends at %v, schema %d bucket %d at %v", schema, i, hi, schema+1, 2*i, up)
				}
			}
			for d := int32(1); schema-d >= minNativeSchema; d++ {
				j := reduceIndex(i, d)
				if nativeBound(j-1, schema-d) > lo || nativeBound(j, schema-d) < hi {
					t.Fatalf("reduceIndex(%d, %d) = %d: (%v, %v] is not inside (%v, %v]", i, d, j,
						lo, hi, nativeBound(j-1, schema-d), nativeBound(j, schema-d))
				}
			}
		}
	}
}

func TestReduceIndex(t *testing.T) {
	tests := []struct{ index, d, want int32 }{
		{1, 1, 1}, {2, 1, 1}, {3, 1, 2}, {0, 1, 0}, {-1, 1, 0}, {-2, 1, -1},
		{8, 3, 1}, {9, 3, 2}, {-7, 3, 0}, {-8, 3, -1}, {5, 0, 5},
	}
	for _, tt := range tests {
		if got := reduceIndex(tt.index, tt.d); got != tt.want {
			t.Errorf("reduceIndex(%d, %d) = %d, want %d", tt.index, tt.d, got, tt.want)
		}
	}
}

// nativeOne observes v once into a fresh client_golang native histogram of
// the given schema and zero threshold and decodes what it exposes.
func nativeOne(t *testing.T, schema int32, zeroThreshold, v float64) nativeHist {
	t.Helper()
	// client_golang picks the largest schema whose factor is at most the
	// one asked for; a hair above the schema's own factor picks it.
	factor := math.Exp2(math.Exp2(-float64(schema))) * (1 + 1e-6)
	h := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "x", Help: "x", NativeHistogramBucketFactor: factor, NativeHistogramZeroThreshold: zeroThreshold,
	})
	h.Observe(v)
	var m dto.Metric
	if err := h.Write(&m); err != nil {
		t.Fatal(err)
	}
	var n nativeHist
	if !decodeNative(m.GetHistogram(), &n) {
		t.Fatalf("schema %d, %v: no native buckets in %v", schema, v, m.GetHistogram())
	}
	if n.schema != schema {
		t.Fatalf("asked for schema %d with factor %v, got %d", schema, factor, n.schema)
	}
	return n
}

// TestNativeBoundClientGolang observes values one at a time into
// client_golang native histograms of every schema and checks that the bucket
// client_golang puts each in is the one whose bounds hold it: bounds, their
// float64 neighbours, random values over the whole float64 range of both
// signs, the extremes and ±Inf. client_golang's bounds may differ from
// nativeBound's by a few ulps, so a value next to a bound may land on
// either side of it.
func TestNativeBoundClientGolang(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for schema := int32(minNativeSchema); schema <= maxNativeSchema; schema++ {
		var values []float64
		for i := int32(-20); i <= 20; i++ {
			b := nativeBound(i, schema)
			values = append(values, b, math.Nextafter(b, 0), math.Nextafter(b, inf))
		}
		for range 100 {
			values = append(values, math.Exp2(rng.Float64()*2040-1020))
		}
		values = append(values, 0x1p-1022, math.MaxFloat64, inf, 1e-300, 1e300)
		for _, v := range values {
			for _, v := range []float64{v, -v} {
				n := nativeOne(t, schema, prometheus.NativeHistogramZeroThresholdZero, v)
				b, side := n.pos, "positive"
				if v < 0 {
					b, side = n.neg, "negative"
				}
				if len(b) != 1 || n.zeroCount != 0 || len(n.pos)+len(n.neg) != 1 {
					t.Fatalf("schema %d, %v: want one %s bucket, got %+v", schema, v, side, n)
				}
				const ulps = 1 + 8e-16
				i, a := b[0].index, math.Abs(v)
				if lo, hi := nativeBound(i-1, schema), nativeBound(i, schema); !(lo < a*ulps && a <= hi*ulps) {
					t.Errorf("schema %d: client_golang puts %v in bucket %d, (%v, %v]", schema, v, i, lo, hi)
				}
			}
		}
	}
}

// TestNativeZeroBucket: observations within the zero threshold land in the
// zero bucket, and ranges gives it the bounds Prometheus gives it.
func TestNativeZeroBucket(t *testing.T) {
	for _, v := range []float64{0, 1e-4, -1e-4, 1e-3, -1e-3} {
		n := nativeOne(t, 3, 1e-3, v)
		if n.zeroCount != 1 || len(n.pos)+len(n.neg) != 0 || n.zeroThreshold != 1e-3 {
			t.Errorf("%v: %+v, want it in the zero bucket of threshold 1e-3", v, n)
		}
	}
	tests := []struct {
		name string
		h    nativeHist
		want []bucketRange
	}{
		{"alone", nativeHist{zeroThreshold: 1e-3, zeroCount: 2}, []bucketRange{{-1e-3, 1e-3, 2}}},
		{"with positive", nativeHist{zeroThreshold: 1e-3, zeroCount: 2, pos: []nativeBucket{{1, 3}}},
			[]bucketRange{{0, 1e-3, 2}, {1, 2, 3}}},
		{"with negative", nativeHist{zeroThreshold: 1e-3, zeroCount: 2, neg: []nativeBucket{{1, 3}}},
			[]bucketRange{{-2, -1, 3}, {-1e-3, 0, 2}}},
		// Buckets 1 of both signs, (1, 2], reach into the zero bucket
		// [-1.5, 1.5] and count from its edge.
		{"straddling", nativeHist{zeroThreshold: 1.5, zeroCount: 2, pos: []nativeBucket{{1, 3}}, neg: []nativeBucket{{1, 4}, {2, 1}}},
			[]bucketRange{{-4, -2, 1}, {-2, -1.5, 4}, {-1.5, 1.5, 2}, {1.5, 2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.h.ranges(nil)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(bucketRange{})); diff != "" {
				t.Errorf("ranges (-want +got):\n%s", diff)
			}
		})
	}
}

func span(offset int32, length uint32) *dto.BucketSpan {
	return &dto.BucketSpan{Offset: &offset, Length: &length}
}

func TestDecodeNative(t *testing.T) {
	schema := func(s int32) *int32 { return &s }
	f := func(v float64) *float64 { return &v }
	u := func(v uint64) *uint64 { return &v }
	tests := []struct {
		name string
		h    *dto.Histogram
		ok   bool
		want nativeHist
	}{
		{"classic", &dto.Histogram{SampleCount: u(3), Bucket: []*dto.Bucket{{UpperBound: f(1), CumulativeCount: u(3)}}}, false, nativeHist{}},
		{"empty with no-op span", &dto.Histogram{Schema: schema(3), ZeroThreshold: f(1e-9), PositiveSpan: []*dto.BucketSpan{span(0, 0)}},
			true, nativeHist{schema: 3, zeroThreshold: 1e-9}},
		// Spans at -2 (length 2) and, 1 bucket later, at 1 (length 3);
		// deltas 1 +1 | -2 +4 -1: counts 1 2 | 0 4 3, the 0 left out.
		{"deltas", &dto.Histogram{
			Schema: schema(0), SampleCount: u(12), ZeroThreshold: f(0.01), ZeroCount: u(2),
			PositiveSpan: []*dto.BucketSpan{span(-2, 2), span(1, 3)}, PositiveDelta: []int64{1, 1, -2, 4, -1},
			NegativeSpan: []*dto.BucketSpan{span(5, 1)}, NegativeDelta: []int64{7},
		}, true, nativeHist{
			schema: 0, zeroThreshold: 0.01, zeroCount: 2, count: 12,
			pos: []nativeBucket{{-2, 1}, {-1, 2}, {2, 4}, {3, 3}}, neg: []nativeBucket{{5, 7}},
		}},
		{"float counts", &dto.Histogram{
			Schema: schema(-2), SampleCountFloat: f(4.5), ZeroCountFloat: f(0.5),
			PositiveSpan: []*dto.BucketSpan{span(3, 2)}, PositiveCount: []float64{1.5, 2.5},
		}, true, nativeHist{schema: -2, zeroCount: 0.5, count: 4.5, pos: []nativeBucket{{3, 1.5}, {4, 2.5}}}},
		{"schema 9", &dto.Histogram{Schema: schema(9)}, false, nativeHist{}},
		{"custom buckets", &dto.Histogram{Schema: schema(-53)}, false, nativeHist{}},
		{"NaN threshold", &dto.Histogram{Schema: schema(0), ZeroThreshold: f(math.NaN())}, false, nativeHist{}},
		{"short deltas", &dto.Histogram{Schema: schema(0), PositiveSpan: []*dto.BucketSpan{span(0, 3)}, PositiveDelta: []int64{1, 1}}, false, nativeHist{}},
		{"long deltas", &dto.Histogram{Schema: schema(0), PositiveSpan: []*dto.BucketSpan{span(0, 1)}, PositiveDelta: []int64{1, 1}}, false, nativeHist{}},
		{"negative count", &dto.Histogram{Schema: schema(0), PositiveSpan: []*dto.BucketSpan{span(0, 2)}, PositiveDelta: []int64{1, -2}}, false, nativeHist{}},
		{"backward span", &dto.Histogram{Schema: schema(0), PositiveSpan: []*dto.BucketSpan{span(0, 1), span(-3, 1)}, PositiveDelta: []int64{1, 0}}, false, nativeHist{}},
		{"deltas and counts", &dto.Histogram{Schema: schema(0), PositiveSpan: []*dto.BucketSpan{span(0, 1)}, PositiveDelta: []int64{1}, PositiveCount: []float64{1}}, false, nativeHist{}},
		{"index out of range", &dto.Histogram{Schema: schema(0), PositiveSpan: []*dto.BucketSpan{span(math.MaxInt32, 1)}, PositiveDelta: []int64{1}}, false, nativeHist{}},
		{"overflowing deltas", &dto.Histogram{Schema: schema(0), PositiveSpan: []*dto.BucketSpan{span(0, 2)}, PositiveDelta: []int64{math.MaxInt64, 1}}, false, nativeHist{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got nativeHist
			ok := decodeNative(tt.h, &got)
			if ok != tt.ok {
				t.Fatalf("decodeNative = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(nativeHist{}, nativeBucket{}), cmpEmpty); diff != "" {
				t.Errorf("decodeNative (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty treats nil and empty bucket slices alike.
var cmpEmpty = cmp.Comparer(func(a, b []nativeBucket) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
})

func TestNativeQuantileByHand(t *testing.T) {
	// 10 in (1, 2] and 30 in (2, 4], schema 0.
	pos := []bucketRange{{1, 2, 10}, {2, 4, 30}}
	neg := []bucketRange{{-2, -1, 10}}
	tests := []struct {
		name    string
		buckets []bucketRange
		count   float64
		q, want float64
	}{
		// Counted from the top, rank 20 of the 30 in (2, 4] is a third of
		// the way up from 2: 2^(1 + 1/3) on the logarithmic scale.
		{"median", pos, 40, 0.5, math.Exp2(1 + 1./3)},
		// From the bottom: rank 5 of the 10 in (1, 2]: √2.
		{"p12.5", pos, 40, 0.125, math.Sqrt2},
		{"p25 is the boundary", pos, 40, 0.25, 2},
		{"p100", pos, 40, 1, 4},
		{"p0 skips empty buckets", append([]bucketRange{{0.5, 1, 0}}, pos...), 40, 0, 1},
		// Negative buckets mirror: a quarter up from -2 is -2^(3/4).
		{"negative", neg, 10, 0.25, -math.Exp2(0.75)},
		{"negative median", neg, 10, 0.5, -math.Sqrt2},
		// The zero bucket interpolates linearly.
		{"zero bucket", []bucketRange{{0, 0.01, 10}, {1, 2, 10}}, 20, 0.25, 0.005},
		// 20 NaN observations: the rank counts from the bottom, 20 of the
		// 30 in (2, 4] for the median, and p90 (rank 54) lies past every
		// bucket.
		{"NaN observations", pos, 60, 0.5, math.Exp2(1 + 2./3)},
		{"NaN observations past the top", pos, 60, 0.9, 4},
		// A bucket for +Inf observations yields its finite bound.
		{"+Inf bucket", []bucketRange{{1, 2, 1}, {math.MaxFloat64, inf, 1}}, 2, 1, math.MaxFloat64},
		{"no observations", []bucketRange{{1, 2, 0}}, 0, 0.5, math.NaN()},
		{"none", nil, 0, 0.5, math.NaN()},
		{"q below 0", pos, 40, -1, math.Inf(-1)},
		{"q above 1", pos, 40, 2, inf},
		{"q NaN", pos, 40, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nativeQuantile(tt.q, tt.buckets, tt.count); !near(got, tt.want) {
				t.Errorf("nativeQuantile(%v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
	if got := nativeP100(pos); got != 4 {
		t.Errorf("nativeP100 = %v, want 4", got)
	}
	if got := nativeP100([]bucketRange{{1, 2, 1}, {2, 4, 0}}); got != 2 {
		t.Errorf("nativeP100 with an empty top bucket = %v, want 2", got)
	}
	if got := nativeP100(nil); !math.IsNaN(got) {
		t.Errorf("nativeP100(nil) = %v, want NaN", got)
	}
}

func TestNativeHistSum(t *testing.T) {
	a := &nativeHist{schema: 1, zeroThreshold: 0.1, zeroCount: 1, count: 9, pos: []nativeBucket{{1, 2}, {2, 3}, {3, 1}}, neg: []nativeBucket{{0, 2}}}
	b := &nativeHist{schema: 0, zeroThreshold: 0.3, zeroCount: 2, count: 8, pos: []nativeBucket{{-1, 1}, {1, 4}, {2, 1}}}
	var got nativeHist
	got.sum([]*nativeHist{a, b})
	// a at schema 0: pos 1:2+3, 2:1; neg 0:2 (bound 1, above 0.3). b's
	// bucket -1, (0.25, 0.5], is not wholly within 0.3 and stays.
	want := nativeHist{
		schema: 0, zeroThreshold: 0.3, zeroCount: 3, count: 17,
		pos: []nativeBucket{{-1, 1}, {1, 9}, {2, 2}}, neg: []nativeBucket{{0, 2}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(nativeHist{}, nativeBucket{}), cmpEmpty); diff != "" {
		t.Errorf("sum (-want +got):\n%s", diff)
	}
	got.widenZero(0.5)
	if got.zeroCount != 4 || got.pos[0].index != 1 {
		t.Errorf("widenZero(0.5): %+v, want bucket -1 in the zero bucket", got)
	}
}

// FuzzDecodeNative feeds arbitrary protobuf histograms through the native
// decoder, two scrapes of a window and an evaluation: no panic, decoded
// buckets sorted and populated, and no NaN point.
func FuzzDecodeNative(f *testing.F) {
	for _, schema := range []int32{-4, 0, 3, 8} {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "x", Help: "x", Buckets: []float64{0.001, 1},
			NativeHistogramBucketFactor: math.Exp2(math.Exp2(-float64(schema))) * (1 + 1e-6),
		})
		for _, v := range []float64{5e-5, 0.003, 1.01, -2, 0, inf} {
			h.Observe(v)
		}
		var m dto.Metric
		if err := h.Write(&m); err != nil {
			f.Fatal(err)
		}
		first, _ := proto.Marshal(m.GetHistogram())
		h.Observe(1e6)
		if err := h.Write(&m); err != nil {
			f.Fatal(err)
		}
		second, _ := proto.Marshal(m.GetHistogram())
		f.Add(first, second)
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		w := newWindows(time.Minute, nil, []float64{0.5, 0.99})
		for i, raw := range [][]byte{first, second} {
			var h dto.Histogram
			if proto.Unmarshal(raw, &h) != nil {
				return
			}
			var n nativeHist
			if !decodeNative(&h, &n) {
				return
			}
			for _, b := range [][]nativeBucket{n.pos, n.neg} {
				for k := range b {
					if !(b[k].count > 0) || (k > 0 && b[k].index <= b[k-1].index) {
						t.Fatalf("decoded buckets %+v: not sorted or not populated", b)
					}
				}
			}
			at := int64(i+1) * 10 * sec
			w.add(at, "x", map[string]string{}, classicBuckets(&h), sampleCount(&h))
			w.addNative(at, "x", map[string]string{}, &n)
		}
		for _, p := range w.evaluate(20 * sec) {
			if math.IsNaN(p.Value) {
				t.Fatalf("NaN point %+v", p)
			}
		}
	})
}
