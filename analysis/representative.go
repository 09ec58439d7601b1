package analysis

import (
	"cmp"
	"math"
	"slices"
)

// Representative picks the run of variant at level to draw over time:
// among runs, those whose ID is in counted (the level's RunIDs), else
// all of them at that level, the one with the median p50 (the lower of
// the two middle ones; a p50 that is n/a sorts last). nil when runs
// hold none of variant at level.
func Representative(runs []RunDetail, variant string, level Level, counted []int64) *RunDetail {
	var in, all []*RunDetail
	for i := range runs {
		run := &runs[i]
		if run.Variant != variant || run.Level != level {
			continue
		}
		all = append(all, run)
		if slices.Contains(counted, run.ID) {
			in = append(in, run)
		}
	}
	pick := in
	if len(pick) == 0 {
		pick = all
	}
	if len(pick) == 0 {
		return nil
	}
	slices.SortStableFunc(pick, func(a, b *RunDetail) int { return cmp.Compare(runP50(a.Run), runP50(b.Run)) })
	return pick[(len(pick)-1)/2]
}

// runP50 is run's p50 in seconds, +Inf when it is n/a.
func runP50(run Run) float64 {
	if v, ok := Get(run.Latency, "p50"); ok && v.OK {
		return v.Latency.Seconds()
	}
	return math.Inf(1)
}
