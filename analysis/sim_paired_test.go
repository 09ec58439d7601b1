package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pairedSim is what simulatePaired measured of one method over its
// experiments: the share of 95% CIs covering the true shift, the share
// called significant, and the median width of the interval.
type pairedSim struct {
	coverage, significant, width float64
}

// simulatePaired runs 400 synthetic experiments of n repetitions, each
// repetition one run of the baseline and one of the variant: per-run p99s
// log-normal around 10 ms (σ 0.2 on the log scale, as in simulate), the
// variant's shifted by shift seconds, and both runs of a repetition
// slowed alike by slow(rep, rng), the machine's state during that
// repetition. It compares the runs paired and unpaired.
func simulatePaired(t *testing.T, n int, shift float64, slow func(rep int, rng *rand.Rand) float64, seed uint64) (paired, unpaired pairedSim) {
	t.Helper()
	const experiments = 400
	rng := rand.New(rand.NewPCG(seed, 11))
	var pw, uw []float64
	for range experiments {
		base, v := make([]float64, n), make([]float64, n)
		for rep := range n {
			s := slow(rep, rng)
			base[rep] = 0.010*math.Exp(0.2*rng.NormFloat64()) + s
			v[rep] = 0.010*math.Exp(0.2*rng.NormFloat64()) + s + shift
		}
		for _, m := range []struct {
			d     Diff
			sim   *pairedSim
			width *[]float64
		}{{PairedOverhead(v, base), &paired, &pw}, {Overhead(v, base), &unpaired, &uw}} {
			if !m.d.CIOK {
				t.Fatalf("n=%d %s: no CI", n, m.d.Method)
			}
			if m.d.AbsLo <= shift && shift <= m.d.AbsHi {
				m.sim.coverage++
			}
			if m.d.Significant {
				m.sim.significant++
			}
			*m.width = append(*m.width, m.d.AbsHi-m.d.AbsLo)
		}
	}
	for _, s := range []*pairedSim{&paired, &unpaired} {
		s.coverage /= experiments
		s.significant /= experiments
	}
	paired.width, unpaired.width = median(pw), median(uw)
	return paired, unpaired
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestPairedSimulation checks the paired overhead's 95% interval and
// test against the unpaired ones on the same experiments of 10
// repetitions: on a quiet machine, with each repetition slowed by a
// random amount (exponential, mean 4 ms: a busy minute), and with a
// linear drift of 0.5 ms a repetition. The interval must cover the true
// shift in 90–98% of experiments and the test call at most 7% of
// experiments without a shift significant, whatever the machine did;
// pairing must not cost power on a quiet machine and must gain it where
// repetitions differ.
func TestPairedSimulation(t *testing.T) {
	const n = 10
	for i, m := range []struct {
		name string
		slow func(rep int, rng *rand.Rand) float64
		// gain is the least the paired test's power must exceed the
		// unpaired one's by with a 2 ms shift (negative: the most it may
		// fall short).
		gain float64
	}{
		{"quiet", func(int, *rand.Rand) float64 { return 0 }, -0.10},
		{"slow repetitions", func(_ int, rng *rand.Rand) float64 { return 0.004 * rng.ExpFloat64() }, 0.25},
		{"drift", func(rep int, _ *rand.Rand) float64 { return 0.0005 * float64(rep) }, 0.15},
	} {
		var power [2]float64
		for j, shift := range []float64{0.002, 0} {
			p, u := simulatePaired(t, n, shift, m.slow, uint64(100+10*i+j))
			t.Logf("%s, shift %gms: paired coverage %.3f significant %.3f width %.2fms; unpaired coverage %.3f significant %.3f width %.2fms",
				m.name, 1e3*shift, p.coverage, p.significant, 1e3*p.width, u.coverage, u.significant, 1e3*u.width)
			if p.coverage < 0.90 || p.coverage > 0.98 {
				t.Errorf("%s, shift %gms: the paired 95%% CI covered the shift in %.1f%% of experiments; want 90%% to 98%%", m.name, 1e3*shift, 100*p.coverage)
			}
			if shift == 0 {
				for _, s := range []struct {
					method string
					sig    float64
				}{{"paired", p.significant}, {"unpaired", u.significant}} {
					if s.sig > 0.07 {
						t.Errorf("%s: %s called %.1f%% of experiments without a shift significant; want ≤ 7%%", m.name, s.method, 100*s.sig)
					}
				}
				continue
			}
			power = [2]float64{p.significant, u.significant}
		}
		if power[0]-power[1] < m.gain {
			t.Errorf("%s: paired power %.3f, unpaired %.3f; want paired ahead by at least %.2f", m.name, power[0], power[1], m.gain)
		}
	}
}

// TestPairedCoverageSmall checks the paired interval's coverage from the
// fewest pairs that give one, where it is interpolated between exact
// levels far apart (96.9% and 93.8% at 6 pairs), with slow repetitions.
func TestPairedCoverageSmall(t *testing.T) {
	slow := func(_ int, rng *rand.Rand) float64 { return 0.004 * rng.ExpFloat64() }
	for _, n := range []int{6, 8, 20} {
		p, _ := simulatePaired(t, n, 0.001, slow, uint64(200+n))
		t.Logf("%d pairs: coverage %.3f, significant %.3f, width %.2fms", n, p.coverage, p.significant, 1e3*p.width)
		if p.coverage < 0.90 || p.coverage > 0.98 {
			t.Errorf("%d pairs: the 95%% CI covered the shift in %.1f%% of experiments; want 90%% to 98%%", n, 100*p.coverage)
		}
	}
}
