package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simulate runs 200 synthetic experiments of n runs a side: per-run p99s
// log-normal around 10 ms (σ 0.2 on the log scale), the variant's shifted
// by shift seconds. It returns the share of 95% CIs that cover the shift
// and the share of experiments called significant.
func simulate(t *testing.T, n int, shift float64, seed uint64) (coverage, significant float64) {
	t.Helper()
	const experiments = 200
	rng := rand.New(rand.NewPCG(seed, 7))
	draw := func() []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 0.010 * math.Exp(0.2*rng.NormFloat64())
		}
		return xs
	}
	var covered, sig int
	for range experiments {
		base, v := draw(), draw()
		for i := range v {
			v[i] += shift
		}
		d := Overhead(v, base)
		if !d.CIOK {
			t.Fatalf("n=%d: no CI", n)
		}
		if d.AbsLo <= shift && shift <= d.AbsHi {
			covered++
		}
		if d.Significant {
			sig++
		}
	}
	return float64(covered) / experiments, float64(sig) / experiments
}

func TestOverheadSimulation(t *testing.T) {
	for _, n := range []int{5, 10, 20} {
		for j, tc := range []struct {
			name  string
			shift float64
		}{{"shift", 0.001}, {"none", 0}} {
			cov, sig := simulate(t, n, tc.shift, uint64(10*n+j))
			t.Logf("n=%d %s: coverage %.3f, significant %.3f", n, tc.name, cov, sig)
			if cov < 0.90 || cov > 0.98 {
				t.Errorf("n=%d %s: 95%% CI covered the true shift in %.1f%% of experiments; want 90%% to 98%%", n, tc.name, 100*cov)
			}
			if tc.shift == 0 && sig > 0.07 {
				t.Errorf("n=%d: %.1f%% of experiments without a shift called significant; want ≤ 7%%", n, 100*sig)
			}
		}
	}
}
