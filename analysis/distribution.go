package analysis

import (
	"context"
	"fmt"
	"math"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// The shape of a Distribution's plots.
const (
	ladderTicks = 5  // quantiles per half-distance to 100%, as HdrHistogram's PercentilesPrint(w, 5, …)
	pdfBins     = 60 // bins of the latency histogram
	pdfLowQ     = 0.001
	// pdfLogRatio is the span (largest over smallest latency binned) past
	// which bins are log-spaced: 30 ms ± 1 ms reads best on a linear axis,
	// 10 µs to 1 s only on a log one.
	pdfLogRatio = 2
)

// A Distribution is the merged latency distribution of the counted runs
// of one variant at one level, for CDF and PDF plots. Latencies are
// seconds.
type Distribution struct {
	Variant string
	Level
	Runs  int   // runs merged
	Count int64 // samples
	// Quantiles are the latency (Y) at quantile q (X, in [0, 1)) on
	// HdrHistogram's percentile ladder: five steps per halving of 1−q
	// (0, 0.1, …, 0.5, 0.55, …, 0.75, 0.775, …), as far as q is read
	// from enough samples: q ≤ 1 − 1/Count. Values are HdrHistogram's (the
	// top of a value's bucket; at q = 0 its bottom, the minimum). The
	// maximum, at q = 1, cannot sit on a percentile axis: it is Max.
	Quantiles []Point
	Max       float64 // NaN when Count is 0
	// PDF is the latency histogram: 60 bins from about the 0.1th
	// percentile to the maximum, log-spaced when the maximum is more than
	// twice the low end (PDFLog) and linear otherwise. The few samples
	// below the first bin count in it, so the shares sum to 1.
	PDF    []Bin
	PDFLog bool
}

// A Bin is one bar of a latency histogram: the share of samples whose
// latency is in [Lo, Hi) seconds. Shares of HdrHistogram buckets that
// straddle bins are split in proportion to the overlap.
type Bin struct{ Lo, Hi, Share float64 }

// LoadDistributions merges the total measurement latency histograms of
// exp's runs for each variant × level, counting the runs Aggregate counts
// (valid ones, or all with opt.IncludeFlagged). Distributions come in
// Aggregate's order: variants as they first appear in exp.Runs, then by
// increasing level. A variant × level without a counted run has Runs 0.
func LoadDistributions(ctx context.Context, db *store.DB, exp *Experiment, opt Options) ([]Distribution, error) {
	var out []Distribution
	for _, lr := range Aggregate(exp.Runs, opt) {
		d := Distribution{Variant: lr.Variant, Level: lr.Level, Runs: len(lr.RunIDs), Max: math.NaN()}
		merged := record.NewHistogram()
		for _, id := range lr.RunIDs {
			t, err := db.Totals(ctx, id, store.Measure)
			if _, ok := store.DamagedRows(err); !ok {
				return nil, err
			}
			if t.Latency == nil { // none, or damaged: Load named it
				continue
			}
			if dropped := merged.Merge(t.Latency); dropped > 0 {
				return nil, fmt.Errorf("merging latency of run %d: %d samples out of range", id, dropped)
			}
		}
		d.Count = merged.TotalCount()
		if d.Count > 0 {
			d.Max = float64(merged.Max()) / 1e9
			d.Quantiles = ladder(merged)
			d.PDF, d.PDFLog = pdf(merged)
		}
		out = append(out, d)
	}
	return out, nil
}

// ladder reads h at HdrHistogram's percentile ladder with ladderTicks
// steps per half-distance, for every q h has enough samples for.
func ladder(h *hdr.Histogram) []Point {
	var out []Point
	for level := 0; level < 64; level++ {
		// Level L spans q in [1 − 2^−L, 1 − 2^−(L+1)) in ladderTicks steps.
		base, width := 1-math.Ldexp(1, -level), math.Ldexp(1, -level-1)
		for j := range ladderTicks {
			q := base + float64(j)*width/ladderTicks
			v, ok := record.Quantile(h, q)
			if !ok {
				return out
			}
			out = append(out, Point{X: q, Y: v.Seconds()})
		}
	}
	return out
}

// pdf bins h's samples (see Distribution.PDF) and reports whether the
// bins are log-spaced.
func pdf(h *hdr.Histogram) ([]Bin, bool) {
	var bars []hdr.Bar
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			bars = append(bars, b)
		}
	}
	n := h.TotalCount()
	// lo: the bottom of the bucket of the ⌈0.001·n⌉-th sample; hi: the top
	// of the largest sample's bucket.
	rank, lo := max(1, int64(math.Ceil(pdfLowQ*float64(n)))), 0.0
	var seen int64
	for _, b := range bars {
		if seen += b.Count; seen >= rank {
			lo = float64(b.From)
			break
		}
	}
	hi := float64(bars[len(bars)-1].To + 1)
	logBins := hi > pdfLogRatio*lo && lo > 0
	edges := make([]float64, pdfBins+1)
	for i := range edges {
		f := float64(i) / pdfBins
		if logBins {
			edges[i] = lo * math.Exp(f*math.Log(hi/lo))
		} else {
			edges[i] = lo + f*(hi-lo)
		}
	}
	edges[0], edges[pdfBins] = lo, hi
	counts := make([]float64, pdfBins)
	for _, b := range bars {
		from, to := float64(b.From), float64(b.To+1)
		c := float64(b.Count)
		if to <= lo { // below the first bin: count it there
			counts[0] += c
			continue
		}
		if from < lo { // the part below the first bin goes to it
			below := c * (lo - from) / (to - from)
			counts[0] += below
			c -= below
			from = lo
		}
		// Spread c over the bins [from, to) overlaps, by length.
		// The first bin that ends past from:
		i, found := slices.BinarySearch(edges, from)
		if !found {
			i--
		}
		for i = max(i, 0); i < pdfBins && edges[i] < to; i++ {
			overlap := min(to, edges[i+1]) - max(from, edges[i])
			if overlap > 0 {
				counts[i] += c * overlap / (to - from)
			}
		}
	}
	bins := make([]Bin, pdfBins)
	for i := range bins {
		bins[i] = Bin{Lo: edges[i] / 1e9, Hi: edges[i+1] / 1e9, Share: counts[i] / float64(n)}
	}
	return bins, logBins
}
