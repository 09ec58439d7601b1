package analysis

import "fmt"

// compare compares a variant's cell vc with the baseline's bc at one
// level: paired when their runs give at least as many pairs of one
// repetition as a paired comparison needs for a 95% interval and for a
// test able to reject at Alpha after Holm over family comparisons (see
// pairsNeeded), else unpaired over all their runs. The choice rests on
// counts alone, never on the values, so it biases neither the interval
// nor the test; it falls back because with few pairs the signed-rank
// test's smallest p, 2/2ⁿ, is far above the U test's, 2/C(2n, n), and
// Holm could leave a paired table unable to reject anything that an
// unpaired one can.
func compare(vc, bc Cell, floor float64, family int) Diff {
	v, b := pairUp(vc, bc)
	if len(v) == 0 || len(v) < pairsNeeded(family) {
		d := overhead(vc.Values, bc.Values, floor)
		d.Pairs = len(v)
		return d
	}
	d := pairedOverhead(v, b, floor)
	d.N, d.BaselineN, d.Baseline = len(vc.Values), len(bc.Values), Median(bc.Values)
	return d
}

// pairUp returns the values of vc and bc whose runs share a repetition,
// in vc's order: v[i] and b[i] are one repetition's. A run whose partner
// was left out (flagged, unfinished, unreadable) pairs with none. A cell
// without repetitions, or that repeats one (runs not of one plan), pairs
// none.
func pairUp(vc, bc Cell) (v, b []float64) {
	if len(vc.Reps) != len(vc.Values) || len(bc.Reps) != len(bc.Values) {
		return nil, nil
	}
	at := make(map[int]int, len(bc.Reps))
	for j, rep := range bc.Reps {
		if _, twice := at[rep]; twice {
			return nil, nil
		}
		at[rep] = j
	}
	seen := make(map[int]bool, len(vc.Reps))
	for i, rep := range vc.Reps {
		if seen[rep] {
			return nil, nil
		}
		seen[rep] = true
		if j, ok := at[rep]; ok {
			v, b = append(v, vc.Values[i]), append(b, bc.Values[j])
		}
	}
	return v, b
}

// PairingReach says when comparisons of cs whose runs pair by repetition
// were compared unpaired, too few pairs for a paired comparison, and how
// many repetitions one needs; "" when none were.
func PairingReach(cs []Comparison) string {
	rows, most, need := 0, 0, 0
	for _, c := range cs {
		if c.Method != MethodUnpaired || c.Pairs == 0 {
			continue
		}
		rows++
		most, need = max(most, c.Pairs), max(need, pairsNeeded(c.Family))
	}
	if rows == 0 {
		return ""
	}
	return fmt.Sprintf("%d overhead row(s) compared unpaired though their runs pair by repetition: at most %d pairs, "+
		"and a paired comparison in this table needs %d (for a 95%% CI and a signed-rank test able to reject at %g%% after Holm); "+
		"with as many repetitions, what slows a whole repetition cancels out of each difference", rows, most, need, 100*Alpha)
}
