package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

// A trendTarget describes the service times of synthetic runs: log-normal
// about median with per-request spread sigma (on the log scale), times a
// wander that strays about 1 as a stationary AR(1) process on the log
// scale (standard deviation wander, correlation time tau requests), times
// 1 + rise × the share of the run gone by: a planted trend.
type trendTarget struct {
	name   string
	median time.Duration
	sigma  float64
	wander float64
	tau    float64
}

// The two kinds of target the trend flag sees: one that sleeps 2.3 ms and
// barely strays (latlab serve /sleep?ms=2: group medians within about 2%
// of the line), and a fast one that strays as nginx does on a shared
// 2-CPU machine (45 µs, group medians 10–25% off the line, correlated
// from one group to the next).
var (
	slowTarget = trendTarget{"slow", 2300 * time.Microsecond, 0.03, 0.01, 200}
	fastTarget = trendTarget{"fast", 45 * time.Microsecond, 0.35, 0.22, 150}
	// noisyTarget's requests are independent draws of a wide
	// distribution, without wander: its group medians stray by their
	// sampling alone, which the slope's CI already allows for.
	noisyTarget = trendTarget{"noisy", 10 * time.Millisecond, 0.4, 0, 1}
)

// trendRuns draws runs runs of n requests each from tt with a planted rise
// and returns the share that the trend flag's rule (Rising at
// DefaultMaxTrend) flags, the share the rule before the wander bound
// flagged (a slope wholly above zero and a rise past 10% of the median),
// and the median over the runs of the group medians' wander as a share of
// the median and of the lag-1 correlation of their residuals.
func trendRuns(tt trendTarget, rise float64, runs, n int, seed uint64) (flagged, before, wander, rho float64) {
	rng := rand.New(rand.NewPCG(seed, 13))
	phi := math.Exp(-1 / tt.tau)
	innov := tt.wander * math.Sqrt(1-phi*phi)
	raw := make([]record.Raw, n)
	var nf, nb int
	wanders, rhos := make([]float64, runs), make([]float64, runs)
	for k := range runs {
		w := tt.wander * rng.NormFloat64()
		for i := range raw {
			w = phi*w + innov*rng.NormFloat64()
			at := time.Duration(i) * time.Millisecond
			svc := float64(tt.median) * math.Exp(tt.sigma*rng.NormFloat64()+w) * (1 + rise*float64(i)/float64(n))
			raw[i] = record.Raw{Intended: at, Sent: at, Done: at + time.Duration(svc), Code: 200}
		}
		tr, ok := FitTrend(raw, ServiceTime)
		if !ok {
			panic("no fit")
		}
		if tr.Rising(spec.DefaultMaxTrend) {
			nf++
		}
		if tr.Lo > 0 && tr.Rise > spec.DefaultMaxTrend*tr.Median {
			nb++
		}
		var num, den float64
		for i, g := range tr.Groups {
			e := g.Y - tr.Intercept - tr.Slope*g.X
			den += e * e
			if i > 0 {
				num += e * (tr.Groups[i-1].Y - tr.Intercept - tr.Slope*tr.Groups[i-1].X)
			}
		}
		wanders[k], rhos[k] = tr.Wander/tr.Median, num/den
	}
	return float64(nf) / float64(runs), float64(nb) / float64(runs), medianInPlace(wanders), medianInPlace(rhos)
}

// TestTrendSimulation gives the trend flag's false alarms (runs flagged
// with no rise planted) and power (runs flagged with one), beside the
// rule before the wander bound, on 400 runs of 4,000 requests for each
// target and rise. The flag must stay under 5% false alarms on both
// targets, and catch rises of a quarter and two fifths of a slow target's
// service time (bench/faults plants such rises) in at least 95% of runs.
// On a noisy target without wander the wander bound must cost no power.
// On the fast target the rule before the wander bound flagged an eighth
// of trendless runs, as it did a fifth of nginx's in an A/A study.
func TestTrendSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const runs, n = 400, 4000
	for i, tc := range []struct {
		tt        trendTarget
		rise      float64
		most      float64 // flagged at most
		least     float64 // flagged at least
		beforeMin float64 // the rule before flagged at least
	}{
		{slowTarget, 0, 0.05, 0, 0},
		{slowTarget, 0.10, 1, 0, 0},
		{slowTarget, 0.25, 1, 0.95, 0},
		{slowTarget, 0.40, 1, 0.95, 0},
		{noisyTarget, 0, 0.05, 0, 0},
		{noisyTarget, 0.15, 1, 0, 0},
		{noisyTarget, 0.30, 1, 0.95, 0},
		{fastTarget, 0, 0.05, 0, 0.10},
		{fastTarget, 0.25, 1, 0, 0},
		{fastTarget, 0.50, 1, 0, 0},
		{fastTarget, 1.00, 1, 0, 0},
	} {
		flagged, before, wander, rho := trendRuns(tc.tt, tc.rise, runs, n, uint64(100+i))
		t.Logf("%s target, rise %3.0f%%: flagged %5.1f%% (before the wander bound %5.1f%%); wander %4.1f%% of the median, residual lag-1 correlation %.2f",
			tc.tt.name, 100*tc.rise, 100*flagged, 100*before, 100*wander, rho)
		if flagged > tc.most {
			t.Errorf("%s target, rise %.0f%%: %.1f%% of runs flagged; want at most %.0f%%", tc.tt.name, 100*tc.rise, 100*flagged, 100*tc.most)
		}
		if flagged < tc.least {
			t.Errorf("%s target, rise %.0f%%: %.1f%% of runs flagged; want at least %.0f%%", tc.tt.name, 100*tc.rise, 100*flagged, 100*tc.least)
		}
		if tc.tt.wander == 0 && flagged < before-0.02 {
			t.Errorf("%s target, rise %.0f%%: %.1f%% of runs flagged, %.1f%% before the wander bound; without wander it must cost no power", tc.tt.name, 100*tc.rise, 100*flagged, 100*before)
		}
		if before < tc.beforeMin {
			t.Errorf("%s target, rise %.0f%%: the rule before flagged %.1f%%; the simulation should show it flagging at least %.0f%%", tc.tt.name, 100*tc.rise, 100*before, 100*tc.beforeMin)
		}
	}
}
