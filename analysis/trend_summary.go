package analysis

import (
	"cmp"
	"slices"
)

// A TrendSummary sums up the fitted trends of the runs of one variant at
// one level.
type TrendSummary struct {
	Variant string
	Level
	Runs    int // runs with a fitted trend
	Rising  int // runs whose trend is Rising(DefaultMaxTrend): flagged trend
	Falling int // runs whose slope's 95% CI lies wholly below zero
	// Slope is the median of the runs' slopes, seconds per request; Rise
	// the median of their fitted rises over a run, each a share of its
	// run's median latency.
	Slope, Rise float64
}

// SummarizeTrends sums up the trends of runs with one (TrendOK) by
// variant and level: variants in the order of variants (those it does not
// list first), levels by Level.Compare.
func SummarizeTrends(runs []RunDetail, variants []string) []TrendSummary {
	type key struct {
		v string
		l Level
	}
	groups := map[key][]Trend{}
	var order []key
	for _, run := range runs {
		if !run.TrendOK {
			continue
		}
		k := key{run.Variant, run.Level}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], run.Trend)
	}
	slices.SortStableFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(slices.Index(variants, a.v), slices.Index(variants, b.v)), a.l.Compare(b.l))
	})
	out := make([]TrendSummary, 0, len(order))
	for _, k := range order {
		ts := groups[k]
		s := TrendSummary{Variant: k.v, Level: k.l, Runs: len(ts)}
		var slopes, rises []float64
		for _, tr := range ts {
			if tr.Rising(DefaultMaxTrend) {
				s.Rising++
			}
			if tr.Hi < 0 {
				s.Falling++
			}
			slopes = append(slopes, tr.Slope)
			rises = append(rises, tr.Rise/tr.Median)
		}
		s.Slope, s.Rise = Median(slopes), Median(rises)
		out = append(out, s)
	}
	return out
}
