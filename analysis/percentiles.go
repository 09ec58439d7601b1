package analysis

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

// Histogram is what percentiles are read from: an HdrHistogram, dense or
// packed.
type Histogram interface {
	ValueAtPercentile(float64) int64
	TotalCount() int64
	Max() int64
}

// A Value is one quantile of one run's histogram.
type Value struct {
	spec.Stat
	// Latency is the quantile's value; 0 when it is n/a.
	Latency time.Duration
	// OK is false when the histogram holds fewer than 1/(1−q) samples: the
	// quantile is then n/a, never a number.
	OK bool
	// LowConfidence marks a quantile read from fewer than 10/(1−q) samples.
	// Lo and Hi are then its distribution-free 95% interval between two
	// order statistics; a bound no order statistic reaches is the smallest
	// or largest value recorded, and Open says so.
	LowConfidence bool
	Lo, Hi        time.Duration
	Open          bool
	Count         int64 // samples in the histogram
}

// Percentiles reads every Stat from h, following record's rules: n/a
// below 1/(1−q) samples, low confidence (with its interval) below
// 10/(1−q). A nil h reads as empty. The warnings name the quantiles that
// are n/a or low-confidence; what names the histogram in them ("latency").
func Percentiles(h Histogram, what string) ([]Value, []string) {
	var n int64
	if h != nil {
		n = h.TotalCount()
	}
	out := make([]Value, len(spec.Stats))
	var warns []string
	for i, s := range spec.Stats {
		v := Value{Stat: s, Count: n}
		switch {
		case n == 0:
		case s.Q >= 1:
			v.Latency, v.OK = time.Duration(h.Max()), true
		default:
			v.Latency, v.OK = record.Quantile(h, s.Q)
		}
		if v.OK && record.LowConfidence(n, s.Q) {
			v.LowConfidence = true
			v.Lo, v.Hi, v.Open = interval(h, s.Q)
		}
		switch {
		case !v.OK:
			warns = append(warns, fmt.Sprintf("%s %s: n/a, %d samples (needs %d)", what, s.Name, n, needed(1, s.Q)))
		case v.LowConfidence:
			warns = append(warns, fmt.Sprintf("%s %s: low confidence, %d samples (wants %d)", what, s.Name, n, needed(10, s.Q)))
		}
		out[i] = v
	}
	return out, warns
}

// needed returns the samples c/(1−q) rounded up, 0 for the maximum.
func needed(c, q float64) int64 {
	if q >= 1 {
		return 1
	}
	return int64(c/(1-q) - 1e-9 + 1)
}

// interval returns the order-statistic 95% interval of quantile q of h.
func interval(h Histogram, q float64) (lo, hi time.Duration, open bool) {
	n := int(h.TotalCount())
	l, u := quantileRanks(n, q)
	at := func(rank int) time.Duration {
		return time.Duration(h.ValueAtPercentile(100 * float64(rank) / float64(n)))
	}
	if l < 1 {
		l, open = 1, true
	}
	if u > n {
		u, open = n, true
	}
	return at(l), at(u), open
}

// RunPercentiles are the quantiles of one run's total histograms.
type RunPercentiles struct {
	Latency  []Value  // completion − intended send, in spec.Stats order
	Service  []Value  // completion − actual send, in spec.Stats order
	Warnings []string // quantiles that are n/a or low-confidence
}

// ReadRun reads Stats from a run's total latency and service-time
// histograms; either may be nil.
func ReadRun(latency, service Histogram) RunPercentiles {
	var r RunPercentiles
	var w1, w2 []string
	r.Latency, w1 = Percentiles(latency, "latency")
	r.Service, w2 = Percentiles(service, "service time")
	r.Warnings = append(w1, w2...)
	return r
}

// Get returns the value of the Stat called name in vs.
func Get(vs []Value, name string) (Value, bool) {
	for _, v := range vs {
		if v.Name == name {
			return v, true
		}
	}
	return Value{}, false
}
