package experiment

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/latlab/latlab/record"
)

// The trend test's parameters.
const (
	trendMinSamples = 200     // fewer raw samples than this: no verdict
	trendGroups     = 30      // consecutive groups whose medians are fitted
	trendMaxPoints  = 100_000 // more samples than this are thinned evenly
	// trendT is the 97.5% quantile of Student's t with trendGroups−2 = 28
	// degrees of freedom: the half-width of a 95% CI in standard errors.
	trendT = 2.048407141795244
)

// A trendFit is latency fitted against request number.
type trendFit struct {
	slope  float64 // ns per request
	lo, hi float64 // 95% CI of the slope
	rise   float64 // slope × requests fitted: the fitted change over the run, ns
	median float64 // median latency of the samples fitted, ns
	n      int     // requests fitted
}

// fitTrend fits latency (Done − Intended) against request number over raw
// samples in request order, leaving out the first 10%, where a run is
// noisiest even after warm-up. Failed requests count too, as they do in
// the latency histogram.
//
// Latency is heavy-tailed: a few slow requests would steer a least-squares
// line through every sample, and its residuals are neither normal nor
// independent. So the method fits medians: the requests are cut into 30
// consecutive groups of equal size, each group is reduced to its median
// latency, and those 30 medians are regressed by ordinary least squares on
// the group's centre (its mean request number). The slope's standard error
// comes from the residuals of the medians, and its 95% CI uses Student's t
// with 28 degrees of freedom: medians of hundreds of requests are close to
// normal and independent of one another even when single requests are
// not. More than 100,000 samples are thinned evenly first (every k-th), which
// changes a group's median by far less than its noise. With fewer than 200
// raw samples there is no fit (ok false).
func fitTrend(raw []record.Raw) (fit trendFit, ok bool) {
	if len(raw) < trendMinSamples {
		return trendFit{}, false
	}
	s := raw[len(raw)/10:]
	m := len(s)
	stride := (m + trendMaxPoints - 1) / trendMaxPoints
	all := make([]float64, 0, m/stride+trendGroups)
	var xs, ys [trendGroups]float64
	for g := range trendGroups {
		lo, hi := g*m/trendGroups, (g+1)*m/trendGroups
		from := len(all)
		for i := lo; i < hi; i++ {
			if i%stride == 0 {
				all = append(all, float64(s[i].Done-s[i].Intended))
			}
		}
		ys[g] = medianInPlace(all[from:])
		xs[g] = float64(lo+hi-1) / 2
	}
	var xm, ym float64
	for g := range trendGroups {
		xm += xs[g] / trendGroups
		ym += ys[g] / trendGroups
	}
	var sxx, sxy float64
	for g := range trendGroups {
		sxx += (xs[g] - xm) * (xs[g] - xm)
		sxy += (xs[g] - xm) * (ys[g] - ym)
	}
	slope := sxy / sxx
	var ssr float64
	for g := range trendGroups {
		e := ys[g] - ym - slope*(xs[g]-xm)
		ssr += e * e
	}
	half := trendT * math.Sqrt(ssr/(trendGroups-2)/sxx)
	return trendFit{
		slope: slope, lo: slope - half, hi: slope + half,
		rise: slope * float64(m), median: medianInPlace(all), n: m,
	}, true
}

// medianInPlace returns the median of v, sorting v in place.
func medianInPlace(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// trendReason gives the reason for trend, or "": the fit of fitTrend has a
// slope whose 95% CI excludes zero and a fitted change over the run above
// MaxTrend of the median latency. Only a rise counts, as DESIGN.md says: a
// target falling behind its load; latency that falls as caches warm does
// not make a run wrong.
func (v Validity) trendReason(raw []record.Raw) string {
	f, ok := fitTrend(raw)
	if !ok || f.lo <= 0 || f.rise <= v.MaxTrend*f.median {
		return ""
	}
	n := float64(f.n)
	return fmt.Sprintf("latency rises by %s over %d requests (95%% CI %s to %s), %.1f%% of the median %s (> %.4g%%)",
		durText(time.Duration(f.rise)), f.n, durText(time.Duration(f.lo*n)), durText(time.Duration(f.hi*n)),
		100*f.rise/f.median, durText(time.Duration(f.median)), 100*v.MaxTrend)
}
