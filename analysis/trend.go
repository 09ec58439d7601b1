package analysis

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/latlab/latlab/record"
)

// The trend test's parameters.
const (
	trendMinSamples = 200     // fewer raw samples than this: no fit
	trendGroups     = 30      // consecutive groups whose medians are fitted
	trendMaxPoints  = 100_000 // more samples than this are thinned evenly
	// trendT is the 97.5% quantile of Student's t with trendGroups−2 = 28
	// degrees of freedom: the half-width of a 95% CI in standard errors.
	trendT = 2.048407141795244
	// TrendClear is how many times its run's wander (Trend.Wander) a
	// rise must be to count: see Trend.Rising.
	TrendClear = 4.0
)

// A Point is one point of a plotted series.
type Point struct{ X, Y float64 }

// A TrendQuantity is the duration of a raw sample that a Trend is fitted
// to. Its zero value is ServiceTime.
type TrendQuantity uint8

// The quantities a Trend can fit.
const (
	// ServiceTime is Done − Sent: what the target took, from the request's
	// first byte to its response. The trend validity flag is judged on it,
	// since a generator that stalls makes latency rise while the target
	// does nothing different.
	ServiceTime TrendQuantity = iota
	// Lag is Sent − Intended: how late the generator sent each request
	// against its schedule, the generator's own stalls.
	Lag
	// Latency is Done − Intended, lag and service time together: what a
	// user of an open-loop schedule sees.
	Latency
)

// Of returns the quantity q of r; a q past Latency is taken as
// ServiceTime, the zero value.
func (q TrendQuantity) Of(r record.Raw) time.Duration {
	switch q {
	case Lag:
		return r.Sent - r.Intended
	case Latency:
		return r.Done - r.Intended
	default:
		return r.Done - r.Sent
	}
}

// String names q as reports write it: "service time", "lag", "latency".
func (q TrendQuantity) String() string {
	switch q {
	case ServiceTime:
		return "service time"
	case Lag:
		return "lag"
	case Latency:
		return "latency"
	}
	return fmt.Sprintf("TrendQuantity(%d)", uint8(q))
}

// A Trend is one quantity of the raw samples (Quantity: service time, lag
// or latency) fitted against request number after warm-up (see FitTrend).
// Request numbers count a run's stored raw samples in request order, from
// 0. Its zero value is no fit.
type Trend struct {
	Quantity      TrendQuantity // what was fitted
	Slope, Lo, Hi float64       // seconds per request, with the slope's 95% CI
	Rise          float64       // Slope × requests fitted: the fitted change over the run, seconds
	Median        float64       // median of the quantity over the requests fitted, seconds
	// Intercept is the fitted quantity at request number 0, seconds: the
	// fitted line is Intercept + Slope × request number.
	Intercept float64
	// Wander is how far the group medians stray about the fitted line
	// beyond what their own sampling makes them stray, seconds: the
	// standard deviation of their residuals less, in quadrature, Noise.
	// It is how much the quantity moves over a run without a trend:
	// near 0 when the requests are independent draws of one distribution.
	Wander float64
	// Noise is the standard error a group median has from the requests
	// in its group, seconds (the root mean square over the groups, each
	// from the distribution-free 95% CI of a median: the order statistics
	// 1.96·√k/2 either side of the middle of its k requests, their gap
	// over 2·1.96).
	Noise  float64
	N      int     // requests fitted
	Groups []Point // the group medians fitted: X request number (the group's centre), Y seconds
	From   int     // request number of the first request fitted: the first 10% are skipped
}

// Rising reports whether t's fitted rise over the run is one the run
// can show: on a service-time Trend, the rule of the trend validity flag
// (docs/numbers.md). The rise must
//
//   - have a slope whose 95% CI lies above zero,
//   - exceed share of the median, a change big enough to matter,
//   - exceed TrendClear times the run's wander (Trend.Wander), and
//   - exceed Floor, the least difference latlab claims to resolve.
//
// The wander bound is why a fast target's runs are not flagged for
// straying by a few microseconds. Service time does not stay put over a
// run: a target sharing a machine, its CPU's clock and caches, make its
// group medians stray up and down together for a while (their residuals
// about the line correlate, mostly 0.3 to 0.7 from one group to the next
// in nginx runs of 26–70 µs). The slope's CI takes them for independent,
// so it is too narrow: in an A/A study of nginx against itself, 8 runs of
// 36 had a slope wholly above zero and a rise past 10% of the median, and
// 11 a fall as large. Those rises were 1.4 to 3.5 times the runs'
// wander; the rises bench/faults plants, a quarter and two fifths of a
// 2–3 ms service time, were 11 to 66 times it. A rise of four times the
// wander is a trend a plot shows, not a stray. trend_sim_test.go gives
// the rule's false alarms and power.
//
// Only a rise counts: service time that falls as caches warm does not make
// a run wrong.
func (t Trend) Rising(share float64) bool {
	return t.Lo > 0 && t.Rise > share*t.Median && t.Rise > TrendClear*t.Wander && t.Rise > Floor
}

// FitTrend fits quantity q of raw samples in request order against
// request number, leaving out the first 10%, where a run is noisiest even
// after warm-up: service time (Done − Sent) for the target's trend, lag
// (Sent − Intended) for the generator's. Failed requests count too, as
// they do in the histograms. With fewer than 200 samples there is no fit
// (ok false).
//
// Latencies are heavy-tailed, and so are lags, a stall delaying a burst
// of requests: a few slow requests would steer a least-squares line
// through every sample, and its residuals are neither normal nor
// independent. So the method fits medians: the requests are cut into 30
// consecutive groups of equal size, each group is reduced to its median,
// and those 30 medians are regressed by ordinary least squares on the
// group's centre (its mean request number). The slope's standard error
// comes from the residuals of the medians, and its 95% CI uses Student's t
// with 28 degrees of freedom: medians of hundreds of requests are close to
// normal and independent of one another even when single requests are
// not. More than 100,000 samples are thinned evenly first (every k-th),
// which changes a group's median by far less than its noise.
//
// FitTrend is a TrendFitter fed raw; feed one directly to fit samples
// streamed from a store without holding them all.
func FitTrend(raw []record.Raw, q TrendQuantity) (Trend, bool) {
	f := NewTrendFitter(len(raw), q)
	for i := range raw {
		f.Add(raw[i])
	}
	return f.Fit()
}

// A TrendFitter fits a Trend of one quantity to raw samples fed one at a
// time in request order, such as those store.DB.Samples walks. It needs
// their number beforehand, to know which to skip and how to thin, and
// holds at most about 100,000 durations however many it is fed. A
// TrendFitter is not safe for concurrent use.
type TrendFitter struct {
	q      TrendQuantity
	n      int       // samples expected
	skip   int       // samples skipped at the start
	stride int       // every stride-th sample after skip is kept
	added  int       // samples fed
	kept   []float64 // quantities kept, nanoseconds
}

// NewTrendFitter returns a TrendFitter of quantity q for n raw samples.
func NewTrendFitter(n int, q TrendQuantity) *TrendFitter {
	f := &TrendFitter{q: q, n: n, skip: n / 10, stride: 1}
	if n >= trendMinSamples {
		m := n - f.skip
		f.stride = (m + trendMaxPoints - 1) / trendMaxPoints
		f.kept = make([]float64, 0, (m+f.stride-1)/f.stride)
	}
	return f
}

// Add feeds the next raw sample, in request order; only the times its
// quantity is made of are read. Samples past the n the TrendFitter was
// made for are counted but not kept.
func (f *TrendFitter) Add(r record.Raw) {
	i := f.added - f.skip
	f.added++
	if f.n < trendMinSamples || i < 0 || f.added > f.n || i%f.stride != 0 {
		return
	}
	f.kept = append(f.kept, float64(f.q.Of(r)))
}

// Fit returns the fit of the samples fed, as FitTrend describes; ok is
// false with fewer than 200 samples, or when the samples fed were not the
// number the TrendFitter was made for. Fit sorts what it kept: call it
// once.
func (f *TrendFitter) Fit() (t Trend, ok bool) {
	if f.n < trendMinSamples || f.added != f.n {
		return Trend{}, false
	}
	m := f.n - f.skip
	// The durations are nanoseconds until the end, so that the numbers are
	// those of experiment's original fit, only scaled.
	var xs, ys [trendGroups]float64
	var noise float64
	for g := range trendGroups {
		lo, hi := g*m/trendGroups, (g+1)*m/trendGroups
		// Samples lo…hi−1 of the fitted ones; kept are those at multiples
		// of stride.
		a, b := (lo+f.stride-1)/f.stride, (hi+f.stride-1)/f.stride
		ys[g] = medianInPlace(f.kept[a:b])
		xs[g] = float64(lo+hi-1) / 2
		se := medianSE(f.kept[a:b])
		noise += se * se / trendGroups
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
	wander := math.Sqrt(max(0, ssr/(trendGroups-2)-noise))
	const ns = 1e9
	t = Trend{
		Slope: slope / ns, Lo: (slope - half) / ns, Hi: (slope + half) / ns,
		Rise: slope * float64(m) / ns, Median: medianInPlace(f.kept) / ns,
		Intercept: (ym - slope*(xm+float64(f.skip))) / ns,
		Wander:    wander / ns, Noise: math.Sqrt(noise) / ns,
		N: m, From: f.skip, Groups: make([]Point, trendGroups), Quantity: f.q,
	}
	for g := range trendGroups {
		t.Groups[g] = Point{X: float64(f.skip) + xs[g], Y: ys[g] / ns}
	}
	return t, true
}

// medianSE returns the standard error of the median of v, which is
// sorted, from its distribution-free 95% CI: the order statistics
// 1.96·√n/2 either side of the middle, their gap over 2·1.96. It holds
// whatever the distribution's shape, heavy tails included.
func medianSE(v []float64) float64 {
	n := len(v)
	if n < 2 {
		return 0
	}
	h := 1.96 * math.Sqrt(float64(n)) / 2
	lo := max(0, int(math.Floor(float64(n)/2-h)))
	hi := min(n-1, int(math.Ceil(float64(n)/2+h)))
	return (v[hi] - v[lo]) / (2 * 1.96)
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
