package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestMedianCI(t *testing.T) {
	for _, tc := range []struct {
		name        string
		xs          []float64
		med, lo, hi float64
		ok          bool
	}{
		{"five is too few", []float64{5, 1, 4, 2, 3}, 3, 0, 0, false},
		{"six", []float64{6, 1, 5, 2, 4, 3}, 3.5, 1, 6, true},
		{"ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 2, 9, true},
		{"twenty", seq(20), 10.5, 6, 15, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			med, lo, hi, ok := MedianCI(tc.xs)
			got := []any{med, lo, hi, ok}
			want := []any{tc.med, tc.lo, tc.hi, tc.ok}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("MedianCI(%v) (-want +got):\n%s", tc.xs, diff)
			}
		})
	}
	if m, _, _, ok := MedianCI(nil); !math.IsNaN(m) || ok {
		t.Errorf("MedianCI(nil) = %v, %v; want NaN, false", m, ok)
	}
}

func seq(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return xs
}

func TestHodgesLehmann(t *testing.T) {
	for _, tc := range []struct {
		name          string
		x, y          []float64
		shift, lo, hi float64
		ok            bool
	}{
		// 5 against 5: ranks 3 (level 1 − 8/252) and 4 (1 − 14/252)
		// straddle 95%; w = (0.95 − 238/252)/(6/252) = 7/30 on rank 3, and
		// d(3) = 7, d(4) = 8 of the differences 6 7 7 8 8 8 ...
		{"five a side", []float64{11, 12, 13, 14, 15}, []float64{1, 2, 3, 4, 5}, 10, 8 - 7.0/30, 12 + 7.0/30, true},
		{"three a side", []float64{1, 2, 3}, []float64{0, 1, 2}, 1, 0, 0, false},
		// 4 against 4: ranks 1 (1 − 2/70) and 2 (1 − 4/70); w = 0.25 on
		// d(1) = 1, d(2) = 2.
		{"four a side", []float64{4, 5, 6, 7}, []float64{0, 1, 2, 3}, 4, 1.75, 6.25, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shift, lo, hi, ok := HodgesLehmann(tc.x, tc.y)
			got := []any{shift, lo, hi, ok}
			want := []any{tc.shift, tc.lo, tc.hi, tc.ok}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestULowerTail(t *testing.T) {
	// Counts of U = 0..4 for m = n = 4 are 1 1 2 3 5 of C(8,4) = 70.
	got := uLowerTail(4, 4, 4)
	want := []float64{1.0 / 70, 2.0 / 70, 4.0 / 70, 7.0 / 70, 12.0 / 70}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("uLowerTail(4, 4, 4) (-want +got):\n%s", diff)
	}
}

func TestHolm(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		ps   []float64
		want []float64
	}{
		{"empty", nil, []float64{}},
		{"one", []float64{0.03}, []float64{0.03}},
		{"three", []float64{0.01, 0.04, 0.03}, []float64{0.03, 0.06, 0.06}},
		{"capped", []float64{0.5, 0.6}, []float64{1, 1}},
		{"monotone", []float64{0.02, 0.021, 0.9}, []float64{0.06, 0.06, 0.9}},
		{"nan kept", []float64{0.01, nan, 0.04}, []float64{0.02, nan, 0.04}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Holm(tc.ps)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("Holm(%v) (-want +got):\n%s", tc.ps, diff)
			}
		})
	}
}

func TestOverhead(t *testing.T) {
	base := []float64{100e-6, 102e-6, 101e-6, 103e-6, 99e-6, 104e-6}
	slow := []float64{150e-6, 152e-6, 151e-6, 153e-6, 149e-6, 154e-6}
	for _, tc := range []struct {
		name     string
		v, b     []float64
		sig      bool
		sentence string
		warns    int
	}{
		{"clear shift", slow, base, true, "+50.0µs (+49.3%), 95% CI +47.4µs to +52.6µs, p=0.00216", 0},
		{"same", base, base, false, "no detectable difference (95% CI −2.6µs to +2.6µs)", 1},
		{"too few", base[:3], base[:3], false, "0ns (+0%), inconclusive with 3 against 3 runs: a 95% CI needs 4 a side, a test able to reject at 5% needs 4 a side", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Overhead(tc.v, tc.b)
			got := []any{d.Significant, d.String(), len(d.Warnings)}
			want := []any{tc.sig, tc.sentence, tc.warns}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nwarnings: %q", diff, d.Warnings)
			}
		})
	}
}

// TestOverheadTiesNeverPZero: fully separated samples with ties must get the
// exact smallest p-value, not 0.
func TestOverheadTiesNeverPZero(t *testing.T) {
	d := Overhead([]float64{5, 6, 7, 8}, []float64{1, 2, 3, 4, 4})
	want := 2.0 / 126 // 2/C(9, 4)
	if d.P < want*0.999 {
		t.Errorf("p = %g, want at least %g", d.P, want)
	}
}

func TestHolmReach(t *testing.T) {
	row := func(name string, n, m int) Comparison {
		return Comparison{Stat: spec.Stat{Name: name}, Diff: Diff{N: n, BaselineN: m, P: 0.5}}
	}
	paired := func(name string, pairs int) Comparison {
		return Comparison{Stat: spec.Stat{Name: name}, Diff: Diff{N: 10, BaselineN: 10, Method: MethodPaired, Pairs: pairs, P: 0.5}}
	}
	for _, tc := range []struct {
		name string
		cs   []Comparison
		want string // "" for no warning
	}{
		{"none", nil, ""},
		{"p n/a everywhere", []Comparison{{Stat: spec.Stat{Name: "p50"}, Diff: Diff{N: 3, BaselineN: 3, P: math.NaN()}}}, ""},
		// 5 a side: 2/C(10,5) = 0.0079, below 0.05/6 = 0.0083.
		{"5 a side, 6 rows", slices.Repeat([]Comparison{row("p50", 5, 5)}, 6), ""},
		// 7 rows need 0.0071: out of reach.
		{"5 a side, 7 rows", slices.Repeat([]Comparison{row("p50", 5, 5)}, 7),
			"5 against 5 runs: no U test can give p below 0.00794, and Holm across a quantile's 7 comparisons needs below 0.00714: " +
				"no overhead can come out significant; run more repetitions: " + RaiseRuns},
		// Families are per quantile: 4 p50 rows and 4 p99 rows are k = 4.
		{"two families", append(slices.Repeat([]Comparison{row("p50", 3, 3)}, 4), slices.Repeat([]Comparison{row("p99", 3, 3)}, 4)...),
			"3 against 3 runs: no U test can give p below 0.1, and Holm across a quantile's 4 comparisons needs below 0.0125: " +
				"no overhead can come out significant; run more repetitions: " + RaiseRuns},
		// The best-placed row decides.
		{"one row can", []Comparison{row("p50", 3, 3), row("p50", 8, 8)}, ""},
		// 6 pairs: 2/2⁶ = 0.031, above 0.05/2; 10 a side unpaired would reach.
		{"paired, 6 pairs, 2 rows", slices.Repeat([]Comparison{paired("p50", 6)}, 2),
			"6 pairs: no signed-rank test can give p below 0.0312, and Holm across a quantile's 2 comparisons needs below 0.025: " +
				"no overhead can come out significant; run more repetitions: " + RaiseRuns},
		{"paired, 7 pairs, 2 rows", slices.Repeat([]Comparison{paired("p50", 7)}, 2), ""},
	} {
		if got := HolmReach(tc.cs); got != tc.want {
			t.Errorf("%s: HolmReach = %q; want %q", tc.name, got, tc.want)
		}
	}
}
