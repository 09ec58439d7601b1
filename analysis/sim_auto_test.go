package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// autoSim is what simulateAuto measured of one stopping rule over its
// experiments: the share of final 95% CIs covering the true shift, the
// share of final tests at 5% called significant, and the mean number of
// repetitions run.
type autoSim struct {
	coverage, significant, runs float64
}

// simulateAuto runs 400 synthetic experiments under runs: auto with each
// of rules: lo repetitions, then one at a time until the rule judges the
// paired overhead precise or hi is reached. Each repetition is a run of
// the baseline and one of the variant, their per-run values as
// simulatePaired draws them (log-normal around 10 ms, σ 0.2 on the log
// scale, both slowed alike by slow), the variant's shifted by shift and,
// with noisy above 0, spread further by a normal of noisy seconds: a
// variant that a busy machine hurts more than its baseline, as a proxy
// sharing a CPU with other work. Every rule judges the same experiments.
func simulateAuto(t *testing.T, rules []Precision, lo, hi int, shift, noisy float64, slow func(rep int, rng *rand.Rand) float64, seed uint64) []autoSim {
	t.Helper()
	const experiments = 400
	rng := rand.New(rand.NewPCG(seed, 13))
	sims := make([]autoSim, len(rules))
	base, v := make([]float64, hi), make([]float64, hi)
	for range experiments {
		for rep := range hi {
			s := slow(rep, rng)
			base[rep] = 0.010*math.Exp(0.2*rng.NormFloat64()) + s
			v[rep] = 0.010*math.Exp(0.2*rng.NormFloat64()) + noisy*rng.NormFloat64() + s + shift
		}
		stopped := make([]bool, len(rules))
		for k := lo; k <= hi && slices.Contains(stopped, false); k++ {
			d := PairedOverhead(v[:k], base[:k])
			for i, rule := range rules {
				if stopped[i] || k < hi && !rule.Judge(d).OK {
					continue
				}
				stopped[i] = true
				if d.AbsLo <= shift && shift <= d.AbsHi {
					sims[i].coverage++
				}
				if d.Significant {
					sims[i].significant++
				}
				sims[i].runs += float64(k)
			}
		}
	}
	for i := range sims {
		sims[i].coverage /= experiments
		sims[i].significant /= experiments
		sims[i].runs /= experiments
	}
	return sims
}

// TestAutoStopSimulation checks runs: auto's stopping rule, min 6 and
// max 30 repetitions, with the interval's width judged against 10% of
// the baseline alone and with Relative ½ beside it, under every machine
// the paired simulation knows (quiet, slowed repetitions, drift) and with
// a variant the machine spreads more than its baseline. The final 95%
// interval must cover the true shift in 90–98% of experiments; a test at
// 5% must call at most 7% of experiments without a shift significant,
// and the relative goal must call no more of them than the width alone;
// where the shift is large, the relative goal must stop sooner.
func TestAutoStopSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const lo, hi = 6, 30
	rules := []Precision{{Ratio: 0.10}, {Ratio: 0.10, Relative: 0.5}}
	for i, m := range []struct {
		name  string
		noisy float64
		slow  func(rep int, rng *rand.Rand) float64
	}{
		{"quiet", 0, func(int, *rand.Rand) float64 { return 0 }},
		{"slow repetitions", 0, func(_ int, rng *rand.Rand) float64 { return 0.004 * rng.ExpFloat64() }},
		{"drift", 0, func(rep int, _ *rand.Rand) float64 { return 0.0005 * float64(rep) }},
		{"noisy variant", 0.002, func(int, *rand.Rand) float64 { return 0 }},
	} {
		for j, shift := range []float64{0, 0.001, 0.005} {
			sims := simulateAuto(t, rules, lo, hi, shift, m.noisy, m.slow, uint64(300+10*i+j))
			w, r := sims[0], sims[1]
			t.Logf("%s, shift %gms: width alone coverage %.3f significant %.3f runs %.1f; with relative ½ coverage %.3f significant %.3f runs %.1f",
				m.name, 1e3*shift, w.coverage, w.significant, w.runs, r.coverage, r.significant, r.runs)
			for _, s := range []struct {
				rule string
				sim  autoSim
			}{{"width alone", w}, {"with relative ½", r}} {
				if s.sim.coverage < 0.90 || s.sim.coverage > 0.98 {
					t.Errorf("%s, shift %gms, %s: the final 95%% CI covered the shift in %.1f%% of experiments; want 90%% to 98%%",
						m.name, 1e3*shift, s.rule, 100*s.sim.coverage)
				}
			}
			switch {
			case shift == 0 && (r.significant > 0.07 || r.significant > w.significant):
				t.Errorf("%s: with relative ½, %.1f%% of experiments without a shift called significant (width alone %.1f%%); want ≤ 7%% and no more",
					m.name, 100*r.significant, 100*w.significant)
			case shift == 0.005 && r.runs >= w.runs:
				t.Errorf("%s, shift 5ms: with relative ½ %.1f runs, width alone %.1f; want fewer", m.name, r.runs, w.runs)
			}
		}
	}
}
