package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// bruteSignRank returns P(Σ ranks[i]·Bᵢ ≤ s) for every s up to limit by
// enumerating all 2ⁿ signs.
func bruteSignRank(ranks []int, limit int) []float64 {
	n := len(ranks)
	count := make([]float64, limit+1)
	for mask := range 1 << n {
		s := 0
		for i, r := range ranks {
			if mask&(1<<i) != 0 {
				s += r
			}
		}
		if s <= limit {
			count[s]++
		}
	}
	cum := 0.0
	for s := range count {
		cum += count[s]
		count[s] = cum / float64(int(1)<<n)
	}
	return count
}

func TestSignRankCDF(t *testing.T) {
	for _, ranks := range [][]int{
		{1, 2, 3, 4, 5, 6, 7},
		{3, 3, 3, 8, 10, 12, 14, 16}, // doubled mid-ranks: a tie of three
		{2, 4, 4, 9, 9, 9, 14},
	} {
		total := 0
		for _, r := range ranks {
			total += r
		}
		got, want := signRankCDF(ranks, total), bruteSignRank(ranks, total)
		for s := range want {
			if math.Abs(got[s]-want[s]) > 1e-12 {
				t.Errorf("ranks %v: P(S ≤ %d) = %v; want %v", ranks, s, got[s], want[s])
			}
		}
	}
}

// TestSignRankP checks the test against the textbook example of paired
// data (Hollander and Wolfe's depression scores, R's wilcox.test example):
// V = 40 of 45 with 9 pairs, two-sided p = 20/512.
func TestSignRankP(t *testing.T) {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	if p := signRankP(d); math.Abs(p-20.0/512) > 1e-12 {
		t.Errorf("p = %v; want %v", p, 20.0/512)
	}
	for _, tc := range []struct {
		name string
		d    []float64
		want float64
	}{
		{"all zero", []float64{0, 0, 0}, 1},
		{"one sign", []float64{1, 2, 3, 4, 5, 6}, 2.0 / 64},
		// Pratt: the zero takes rank 1, the others 2..7 all positive; of
		// the 64 signs of six ranks only all-positive reaches 27.
		{"a zero ranked", []float64{0, 1, 2, 3, 4, 5, 6}, 2.0 / 64},
		// Ties: ranks 1.5, 1.5, 3..6 doubled 3, 3, 6, 8, 10, 12; the
		// negative tie sums 3 of 42: signs summing ≤ 3 are {}, {3a}, {3b}.
		{"a tie across signs", []float64{-1, 1, 2, 3, 4, 5}, 2 * 3.0 / 64},
	} {
		if got := signRankP(tc.d); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: p = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// TestSignRankPNormal checks that the normal approximation just beyond
// exactPairs agrees with the exact sum on the same data.
func TestSignRankPNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := exactPairs + 1
	d := make([]float64, n)
	for i := range d {
		d[i] = rng.NormFloat64() + 0.15
	}
	approx := signRankP(d)
	// The exact sum of the same statistic: no ties, so the doubled ranks
	// are 2, 4, ..., 2n.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpAbs(d[a], d[b]) })
	ranks, plus, total := make([]int, n), 0, 0
	for r, i := range idx {
		ranks[r] = 2 * (r + 1)
		total += 2 * (r + 1)
		if d[i] > 0 {
			plus += 2 * (r + 1)
		}
	}
	low := min(plus, total-plus)
	exact := 2 * signRankCDF(ranks, low)[low]
	if exact < 1e-4 || exact > 0.5 || math.Abs(approx-exact) > 0.02*exact {
		t.Errorf("n=%d: normal p %.6g, exact %.6g; want within 2%% (and an exact p between 1e-4 and 0.5 to compare at)", n, approx, exact)
	}
}

func cmpAbs(a, b float64) int {
	switch a, b := math.Abs(a), math.Abs(b); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestWalshRank(t *testing.T) {
	for n := 1; n <= 30; n++ {
		k, w := walshRank(n, confidence)
		if n < MinPairs {
			if k != 0 {
				t.Errorf("n=%d: rank %d; want none below %d pairs", n, k, MinPairs)
			}
			continue
		}
		ranks := make([]int, n)
		for i := range ranks {
			ranks[i] = i + 1
		}
		cdf := bruteSignRankOrExact(ranks)
		// P(T < k) ≤ 2.5% < P(T < k+1): the level of rank k is at least
		// 95%, that of k+1 below.
		if k < 1 || cdf[k-1] > 0.025 || cdf[k] <= 0.025 {
			t.Errorf("n=%d: rank %d, P(T ≤ k−1) = %v, P(T ≤ k) = %v", n, k, cdf[k-1], cdf[k])
		}
		if w < 0 || w > 1 {
			t.Errorf("n=%d: weight %v outside [0, 1]", n, w)
		}
	}
	// The normal approximation beyond exactPairs continues the exact ranks.
	ke, _ := walshRank(exactPairs, confidence)
	ka, _ := walshRank(exactPairs+1, confidence)
	if ka < ke || ka > ke+exactPairs {
		t.Errorf("rank %d at %d pairs, %d at %d", ke, exactPairs, ka, exactPairs+1)
	}
}

// bruteSignRankOrExact enumerates up to 20 ranks, else sums.
func bruteSignRankOrExact(ranks []int) []float64 {
	total := len(ranks) * (len(ranks) + 1) / 2
	if len(ranks) <= 20 {
		return bruteSignRank(ranks, total)
	}
	return signRankCDF(ranks, total)
}

func TestSignedRank(t *testing.T) {
	d := []float64{0.952, -0.147, 1.022, 0.43, 0.62, 0.59, 0.49, -0.08, 0.01}
	centre, lo, hi, p, ok := SignedRank(d)
	var w []float64
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	if want := w[len(w)/2]; !ok || centre != want {
		t.Errorf("centre %v ok %v; want the median Walsh average %v", centre, ok, want)
	}
	// n = 9: P(T ≤ 5) = 10/512 ≤ 2.5% < P(T ≤ 6) = 14/512, so the bounds lie
	// between the 6th and 7th Walsh averages from each end.
	if !(w[5] <= lo && lo <= w[6] && w[len(w)-7] <= hi && hi <= w[len(w)-6]) {
		t.Errorf("interval [%v, %v]; want between w(6) %v and w(7) %v, and w(39) %v and w(40) %v", lo, hi, w[5], w[6], w[len(w)-7], w[len(w)-6])
	}
	if p != 20.0/512 {
		t.Errorf("p = %v; want %v", p, 20.0/512)
	}
	if _, _, _, _, ok := SignedRank(d[:5]); ok {
		t.Error("an interval from 5 pairs; want none below 6")
	}
	if c, _, _, _, ok := SignedRank([]float64{0, 0, 0, 0, 0, 0, 0}); c != 0 || !ok {
		t.Errorf("no differences: centre %v ok %v; want 0 and an interval", c, ok)
	}
}

func TestPairedOverhead(t *testing.T) {
	base := []float64{10, 12, 9, 15, 11, 13, 10, 14}
	v := make([]float64, len(base))
	for i := range base {
		v[i] = base[i] + 1 + 0.01*float64(i)
	}
	d := PairedOverhead(v, base)
	if d.Method != MethodPaired || d.Pairs != 8 || !d.CIOK || !d.Significant || d.AbsLo < 1 || d.AbsHi > 1.07 || d.P != 2.0/256 {
		t.Errorf("%+v; want paired over 8 pairs, interval within [1, 1.07], p = 2/256", d)
	}
	if !d.RelOK || d.Rel <= 0 {
		t.Errorf("relative %v ok %v; want above 0", d.Rel, d.RelOK)
	}
	// Unpaired, the baseline's spread (9 to 15) swamps the shift of 1.
	if u := Overhead(v, base); u.Significant || u.AbsHi-u.AbsLo < 3*(d.AbsHi-d.AbsLo) {
		t.Errorf("unpaired %+v; want a wide interval and no significance", u)
	}
	few := PairedOverhead(v[:5], base[:5])
	if few.Reason != ReasonFewRuns || few.CIOK {
		t.Errorf("5 pairs: reason %q CIOK %v", few.Reason, few.CIOK)
	}
	if want := "inconclusive with 5 pairs: a 95% CI needs 6 pairs, a test able to reject at 5% needs 6 pairs"; !strings.HasSuffix(few.String(), want) {
		t.Errorf("5 pairs: %q; want it to end %q", few.String(), want)
	}
	odd := PairedOverhead(v, base[:7])
	if !math.IsNaN(odd.Abs) || odd.Pairs != 0 || len(odd.Warnings) != 2 {
		t.Errorf("8 against 7 values: %+v; want n/a with a warning that they are no pairs", odd)
	}
}
