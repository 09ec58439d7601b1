package analysis

import (
	"cmp"
	"math"
	"slices"
)

// exactPairs is the largest number of pairs for which the signed-rank
// distribution is summed exactly; beyond it the normal approximation is
// used, within 2% of the exact tail there (see TestSignRankPNormal). The
// sum costs about pairs³/2 steps: a few milliseconds at 200 pairs.
const exactPairs = 200

// MinPairs is the fewest pairs a paired comparison needs for a 95%
// interval: with n pairs the most extreme outcome, every difference of
// one sign, has two-sided probability 2/2ⁿ, which is below 5% from 6.
const MinPairs = 6

// signRankCDF returns P(S ≤ s) for s = 0..limit, where S = Σ ranks[i]·Bᵢ
// and the Bᵢ are independent fair coin flips: the null distribution of
// the signed-rank statistic given the ranks. Each rank halves the
// probabilities and adds a copy shifted by it; halving at every step
// keeps every term a probability, so float64 stays accurate at any
// number of pairs where no count of arrangements would fit.
func signRankCDF(ranks []int, limit int) []float64 {
	p := make([]float64, limit+1)
	p[0] = 1
	for _, r := range ranks {
		for s := limit; s >= 0; s-- {
			if s >= r {
				p[s] = (p[s] + p[s-r]) / 2
			} else {
				p[s] /= 2
			}
		}
	}
	cum := 0.0
	for s := range p {
		cum += p[s]
		p[s] = min(cum, 1)
	}
	return p
}

// walshRank returns the rank k (1-based) of the sorted Walsh averages of
// n pairs whose pair [w(k), w(N+1−k)], N = n(n+1)/2, is the narrowest
// interval for the centre of the differences with confidence at least
// level, and the weight of w(k) when interpolating towards w(k+1) to
// reach level, as shiftRank does for two samples. k is 0 when no rank
// reaches level: at 95%, below MinPairs pairs.
func walshRank(n int, level float64) (k int, w float64) {
	total := n * (n + 1) / 2
	if n > exactPairs {
		sd := math.Sqrt(float64(n) * float64(n+1) * float64(2*n+1) / 24)
		k = int(math.Floor(float64(total)/2 - zTwoSided(level)*sd))
		return max(k, 0), 1
	}
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i + 1
	}
	return straddle(signRankCDF(ranks, total/2), total, level)
}

// centreInterval returns the interval at level of the centre of n pairs'
// differences from their sorted Walsh averages w, as SignedRank does at
// 95%; ok is false when no rank reaches level.
func centreInterval(w []float64, n int, level float64) (lo, hi float64, ok bool) {
	k, weight := walshRank(n, level)
	if k == 0 {
		return 0, 0, false
	}
	lo, hi = bounds(w, k, weight)
	return lo, hi, true
}

// minSignedP is the smallest two-sided p-value a signed-rank test of n
// pairs can give: every difference of one sign, 2/2ⁿ.
func minSignedP(n int) float64 {
	return math.Min(1, math.Ldexp(1, 1-n))
}

// walsh returns the n(n+1)/2 Walsh averages (dᵢ + dⱼ)/2, i ≤ j, of d,
// sorted.
func walsh(d []float64) []float64 {
	out := make([]float64, 0, len(d)*(len(d)+1)/2)
	for i, a := range d {
		for _, b := range d[i:] {
			out = append(out, (a+b)/2)
		}
	}
	slices.Sort(out)
	return out
}

// SignedRank returns the Hodges–Lehmann estimate of the centre of the
// paired differences d, the median of their Walsh averages, and its 95%
// interval [w(k), w(N+1−k)] from the exact signed-rank distribution
// (normal approximation beyond 200 pairs), interpolated between the two
// exact levels that straddle 95% as HodgesLehmann does; ok is false below
// MinPairs pairs. p is the two-sided signed-rank test of centre 0 (see
// signRankP).
//
// A zero difference is kept, not dropped: it is one of the Walsh
// averages, so it pulls the estimate and interval towards 0, and the test
// ranks it with the others but counts it on neither side (Pratt's
// treatment), under which the test is the one the Walsh-average interval
// inverts. Ties make the closed interval slightly conservative; the test
// takes them exactly (see signRankP).
func SignedRank(d []float64) (centre, lo, hi, p float64, ok bool) {
	if len(d) == 0 {
		return math.NaN(), 0, 0, math.NaN(), false
	}
	w := walsh(d)
	lo, hi, ok = centreInterval(w, len(d), confidence)
	return sortedMedian(w), lo, hi, signRankP(d), ok
}

// signRankP returns the two-sided p-value of the signed-rank test that d
// is centred on 0. The absolute differences are ranked with mid-ranks for
// ties, zeros among them (Pratt); the statistic is the sum of the
// positive differences' ranks, and its null distribution the one of
// independent signs on the non-zero ones: exact given the ranks, ties and
// zeros included, up to 200 pairs; beyond, the normal approximation with
// the variance of those ranks and a continuity correction of ½.
func signRankP(d []float64) float64 {
	n := len(d)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(d[a]), math.Abs(d[b])) })
	// Ranks are doubled so that mid-ranks, (first+last)/2, are integers.
	var ranks []int
	plus, total := 0, 0
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(d[idx[j]]) == math.Abs(d[idx[i]]) {
			j++
		}
		r := (i + 1) + j // 2 × the mid-rank of places i+1..j
		for _, at := range idx[i:j] {
			if d[at] == 0 {
				continue // ranked, but on neither side
			}
			ranks, total = append(ranks, r), total+r
			if d[at] > 0 {
				plus += r
			}
		}
		i = j
	}
	if len(ranks) == 0 {
		return 1
	}
	low := min(plus, total-plus) // the distribution is symmetric about total/2
	if n > exactPairs {
		v := 0.0
		for _, r := range ranks {
			v += float64(r) * float64(r) / 4
		}
		z := (float64(total)/2 - float64(low) - 1) / math.Sqrt(v) // ½ a rank, doubled
		return math.Min(1, math.Erfc(math.Max(z, 0)/math.Sqrt2))
	}
	return math.Min(1, 2*signRankCDF(ranks, low)[low])
}
