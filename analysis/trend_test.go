package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// refTrend is experiment's fitTrend as it was before it moved here, in
// nanoseconds: the reference FitTrend must reproduce.
type refTrend struct{ slope, lo, hi, rise, median float64 }

func refFitTrend(raw []record.Raw, of func(record.Raw) time.Duration) (refTrend, bool) {
	if len(raw) < 200 {
		return refTrend{}, false
	}
	s := raw[len(raw)/10:]
	m := len(s)
	stride := (m + 100_000 - 1) / 100_000
	all := make([]float64, 0, m/stride+30)
	var xs, ys [30]float64
	for g := range 30 {
		lo, hi := g*m/30, (g+1)*m/30
		from := len(all)
		for i := lo; i < hi; i++ {
			if i%stride == 0 {
				all = append(all, float64(of(s[i])))
			}
		}
		ys[g] = medianInPlace(all[from:])
		xs[g] = float64(lo+hi-1) / 2
	}
	var xm, ym float64
	for g := range 30 {
		xm += xs[g] / 30
		ym += ys[g] / 30
	}
	var sxx, sxy float64
	for g := range 30 {
		sxx += (xs[g] - xm) * (xs[g] - xm)
		sxy += (xs[g] - xm) * (ys[g] - ym)
	}
	slope := sxy / sxx
	var ssr float64
	for g := range 30 {
		e := ys[g] - ym - slope*(xs[g]-xm)
		ssr += e * e
	}
	half := 2.048407141795244 * math.Sqrt(ssr/28/sxx)
	return refTrend{slope, slope - half, slope + half, slope * float64(m), medianInPlace(all)}, true
}

// trendRaw returns n raw samples due 1 ms apart: log-normal service time
// around 10 ms with a 1% tail five times slower, rising linearly by rise
// over the run, after an exponential lag of 50 µs on average with a stall
// of 20 ms on one request in 200; every 37th request fails, as failures
// count too.
func trendRaw(seed uint64, n int, rise float64) []record.Raw {
	rng := rand.New(rand.NewPCG(seed, 7))
	raw := make([]record.Raw, n)
	for i := range raw {
		v := 10e6 * math.Exp(0.4*rng.NormFloat64())
		if rng.Float64() < 0.01 {
			v *= 5
		}
		lag := time.Duration(50e3 * rng.ExpFloat64())
		if rng.IntN(200) == 0 {
			lag += 20 * time.Millisecond
		}
		at := time.Duration(i) * time.Millisecond
		raw[i] = record.Raw{Intended: at, Sent: at + lag, Done: at + lag + time.Duration(v*(1+rise*float64(i)/float64(n))), Code: 200}
		if i%37 == 0 {
			raw[i].Code, raw[i].Error = 0, record.Timeout
		}
	}
	return raw
}

// TestFitTrendMatchesReference checks each quantity's fit against the
// reference fed that quantity, written out apart from TrendQuantity.Of.
func TestFitTrendMatchesReference(t *testing.T) {
	quantities := []struct {
		q  TrendQuantity
		of func(record.Raw) time.Duration
	}{
		{ServiceTime, func(r record.Raw) time.Duration { return r.Done - r.Sent }},
		{Lag, func(r record.Raw) time.Duration { return r.Sent - r.Intended }},
		{Latency, func(r record.Raw) time.Duration { return r.Done - r.Intended }},
	}
	for _, tc := range []struct {
		name string
		n    int
		rise float64
	}{
		{"fewest", 200, 0.5},
		{"flat", 10_000, 0},
		{"rising", 10_001, 0.2},
		{"falling", 9_999, -0.15},
		{"thinned", 250_007, 0.1}, // stride 3
	} {
		raw := trendRaw(uint64(tc.n), tc.n, tc.rise)
		for _, qc := range quantities {
			t.Run(tc.name+"/"+qc.q.String(), func(t *testing.T) {
				want, wok := refFitTrend(raw, qc.of)
				got, ok := FitTrend(raw, qc.q)
				if !ok || !wok {
					t.Fatalf("ok %v, reference %v; want both", ok, wok)
				}
				if got.Quantity != qc.q {
					t.Errorf("a fit of %s says it is of %s", qc.q, got.Quantity)
				}
				const ns = 1e9
				if diff := cmp.Diff([]float64{want.slope / ns, want.lo / ns, want.hi / ns, want.rise / ns, want.median / ns},
					[]float64{got.Slope, got.Lo, got.Hi, got.Rise, got.Median}); diff != "" {
					t.Errorf("slope, lo, hi, rise, median (-reference +got):\n%s", diff)
				}
				if got.N != tc.n-tc.n/10 || got.From != tc.n/10 || len(got.Groups) != 30 {
					t.Errorf("N %d, From %d, %d groups; want %d, %d, 30", got.N, got.From, len(got.Groups), tc.n-tc.n/10, tc.n/10)
				}
				// The groups tile the requests fitted; the line goes through
				// their mean.
				var xm, ym float64
				for i, g := range got.Groups {
					if i > 0 && g.X <= got.Groups[i-1].X {
						t.Errorf("group %d at %v, not after %v", i, g.X, got.Groups[i-1].X)
					}
					xm, ym = xm+g.X/30, ym+g.Y/30
				}
				if first, last := got.Groups[0].X, got.Groups[29].X; first < float64(got.From) || last > float64(tc.n-1) {
					t.Errorf("groups from %v to %v; want within %d…%d", first, last, got.From, tc.n-1)
				}
				if line := got.Intercept + got.Slope*xm; math.Abs(line-ym) > 1e-12 {
					t.Errorf("the line at the groups' mean request %v is %v; want their mean %v", xm, line, ym)
				}
			})
		}
	}
}

// stallRaw returns n raw samples due 1 ms apart whose service time is
// log-normal around 1 ms, rising by serviceRise over the run, and whose
// lag is 20 µs plus a stall that grows to stall by the end of the run: a
// generator falling further and further behind.
func stallRaw(seed uint64, n int, serviceRise float64, stall time.Duration) []record.Raw {
	rng := rand.New(rand.NewPCG(seed, 11))
	raw := make([]record.Raw, n)
	for i := range raw {
		at := time.Duration(i) * time.Millisecond
		lag := 20*time.Microsecond + time.Duration(float64(stall)*float64(i)/float64(n)*rng.Float64()*2)
		svc := time.Duration(1e6 * math.Exp(0.3*rng.NormFloat64()) * (1 + serviceRise*float64(i)/float64(n)))
		raw[i] = record.Raw{Intended: at, Sent: at + lag, Done: at + lag + svc, Code: 200}
	}
	return raw
}

// TestFitTrendQuantity checks that each quantity is fitted on its own
// times: the lag on Sent − Intended, service time on Done − Sent, latency
// on their sum, so that a generator falling behind shows in the lag and
// latency fits but not in service time's, and a target slowing down in
// service time's and not in the lag's.
func TestFitTrendQuantity(t *testing.T) {
	for _, tc := range []struct {
		name        string
		serviceRise float64
		stall       time.Duration
		rising      map[TrendQuantity]bool
		// rise is the planted change over the requests fitted, seconds,
		// that the fit of each rising quantity must come within 20% of.
		rise map[TrendQuantity]float64
	}{
		{"generator stalls", 0, 4 * time.Millisecond,
			map[TrendQuantity]bool{ServiceTime: false, Lag: true, Latency: true},
			map[TrendQuantity]float64{Lag: 0.9 * 0.004, Latency: 0.9 * 0.004}},
		{"target slows down", 0.5, 0,
			map[TrendQuantity]bool{ServiceTime: true, Lag: false, Latency: true},
			map[TrendQuantity]float64{ServiceTime: 0.9 * 0.5 * 0.001, Latency: 0.9 * 0.5 * 0.001}},
	} {
		raw := stallRaw(1, 20_000, tc.serviceRise, tc.stall)
		for _, q := range []TrendQuantity{ServiceTime, Lag, Latency} {
			t.Run(tc.name+"/"+q.String(), func(t *testing.T) {
				tr, ok := FitTrend(raw, q)
				if !ok {
					t.Fatal("no fit")
				}
				if got := tr.Rising(spec.DefaultMaxTrend); got != tc.rising[q] {
					t.Errorf("Rising %v; want %v: rise %v over a median %v (CI of the slope %v to %v)",
						got, tc.rising[q], tr.Rise, tr.Median, tr.Lo, tr.Hi)
				}
				if want, ok := tc.rise[q]; ok && math.Abs(tr.Rise-want) > 0.2*want {
					t.Errorf("rise %v; want %v within 20%%", tr.Rise, want)
				}
			})
		}
	}
}

func TestTrendQuantity(t *testing.T) {
	r := record.Raw{Intended: 10 * time.Millisecond, Sent: 13 * time.Millisecond, Done: 20 * time.Millisecond}
	for _, tc := range []struct {
		q    TrendQuantity
		of   time.Duration
		name string
	}{
		{ServiceTime, 7 * time.Millisecond, "service time"},
		{Lag, 3 * time.Millisecond, "lag"},
		{Latency, 10 * time.Millisecond, "latency"},
		{TrendQuantity(9), 7 * time.Millisecond, "TrendQuantity(9)"},
	} {
		if got := tc.q.Of(r); got != tc.of {
			t.Errorf("%s of %+v = %v; want %v", tc.name, r, got, tc.of)
		}
		if got := tc.q.String(); got != tc.name {
			t.Errorf("String() = %q; want %q", got, tc.name)
		}
	}
	var zero TrendQuantity
	if zero != ServiceTime {
		t.Errorf("the zero TrendQuantity is %s; want service time", zero)
	}
}

func TestTrendRising(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tr    Trend
		share float64
		want  bool
	}{
		{"rise past the share", Trend{Lo: 1e-9, Rise: 0.002, Median: 0.01}, 0.1, true},
		{"rise at the share", Trend{Lo: 1e-9, Rise: 0.001, Median: 0.01}, 0.1, false},
		{"CI reaches zero", Trend{Lo: 0, Rise: 0.005, Median: 0.01}, 0.1, false},
		{"falling", Trend{Lo: -2e-9, Hi: -1e-9, Rise: -0.005, Median: 0.01}, 0.1, false},
		{"CI alone", Trend{Lo: 1e-12, Rise: 2e-6, Median: 0.01}, 0, true},
		{"below the floor", Trend{Lo: 1e-12, Rise: 0.9e-6, Median: 2e-6}, 0.1, false},
		{"within the wander", Trend{Lo: 1e-9, Rise: 0.002, Median: 0.01, Wander: 0.0006}, 0.1, false},
		{"clear of the wander", Trend{Lo: 1e-9, Rise: 0.002, Median: 0.01, Wander: 0.0004}, 0.1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tr.Rising(tc.share); got != tc.want {
				t.Errorf("Rising(%v) = %v; want %v", tc.share, got, tc.want)
			}
		})
	}
}

func TestTrendFitter(t *testing.T) {
	raw := trendRaw(1, 1000, 0.2)
	for _, tc := range []struct {
		name string
		n    int // the fitter's
		feed int // samples fed
		ok   bool
	}{
		{"as many as said", 1000, 1000, true},
		{"fewer than said", 1000, 999, false},
		{"more than said", 999, 1000, false},
		{"too few", 199, 199, false},
		{"none", 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewTrendFitter(tc.n, ServiceTime)
			for _, r := range raw[:tc.feed] {
				f.Add(r)
			}
			if _, ok := f.Fit(); ok != tc.ok {
				t.Errorf("ok %v; want %v", ok, tc.ok)
			}
		})
	}
}

// TestTrendFitterBounded checks that a million samples fit in 100,000
// service times, however they are fed.
func TestTrendFitterBounded(t *testing.T) {
	const n = 1_000_000
	f := NewTrendFitter(n, ServiceTime)
	for i := range n {
		at := time.Duration(i) * time.Millisecond
		f.Add(record.Raw{Intended: at, Sent: at, Done: at + time.Duration(10_000+i%1000)*time.Microsecond})
	}
	if c := cap(f.kept); c > trendMaxPoints {
		t.Errorf("kept room for %d service times; want at most %d", c, trendMaxPoints)
	}
	tr, ok := f.Fit()
	if !ok || tr.N != n-n/10 {
		t.Fatalf("fit %v, N %d; want a fit of %d", ok, tr.N, n-n/10)
	}
	if tr.Rising(0.1) {
		t.Errorf("a flat run of a million rises: %+v", tr)
	}
}
