package analysis

import (
	"cmp"
	"slices"

	"github.com/latlab/latlab/spec"
)

// A TrendSummary sums up the fitted trends of one quantity (service time
// or lag) of the runs of one variant at one level.
type TrendSummary struct {
	Variant string
	Level
	Runs int // runs with a fitted trend
	// Rising counts the runs whose trend is Rising(DefaultMaxTrend): of
	// service time, those flagged trend.
	Rising  int
	Up      int // runs whose slope's 95% CI lies wholly above zero, however small their rise
	Falling int // runs whose slope's 95% CI lies wholly below zero
	// Slope is the median of the runs' slopes, seconds per request;
	// RiseSeconds the median of their fitted rises over a run, seconds;
	// Rise the median of those rises each as a share of its run's median,
	// over the runs whose median is above zero (NaN when none is: a lag
	// can be zero throughout).
	Slope, RiseSeconds, Rise float64
}

// TrendOf returns d's trend of q: Trend for ServiceTime, LagTrend for
// Lag; ok is false without a fit, and for Latency, which a RunDetail
// does not fit.
func (d *RunDetail) TrendOf(q TrendQuantity) (t Trend, ok bool) {
	switch q {
	case ServiceTime:
		return d.Trend, d.TrendOK
	case Lag:
		return d.LagTrend, d.LagTrendOK
	}
	return Trend{}, false
}

// SummarizeTrends sums up the trends of quantity q of runs with one (see
// RunDetail.TrendOf) by variant and level: variants in the order of
// variants (those it does not list first), levels by Level.Compare.
func SummarizeTrends(runs []RunDetail, variants []string, q TrendQuantity) []TrendSummary {
	type key struct {
		v string
		l Level
	}
	groups := map[key][]Trend{}
	var order []key
	for i := range runs {
		tr, ok := runs[i].TrendOf(q)
		if !ok {
			continue
		}
		k := key{runs[i].Variant, runs[i].Level}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], tr)
	}
	slices.SortStableFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(slices.Index(variants, a.v), slices.Index(variants, b.v)), a.l.Compare(b.l))
	})
	out := make([]TrendSummary, 0, len(order))
	for _, k := range order {
		ts := groups[k]
		s := TrendSummary{Variant: k.v, Level: k.l, Runs: len(ts)}
		var slopes, rises, shares []float64
		for _, tr := range ts {
			if tr.Rising(spec.DefaultMaxTrend) {
				s.Rising++
			}
			if tr.Lo > 0 {
				s.Up++
			}
			if tr.Hi < 0 {
				s.Falling++
			}
			slopes = append(slopes, tr.Slope)
			rises = append(rises, tr.Rise)
			if tr.Median > 0 {
				shares = append(shares, tr.Rise/tr.Median)
			}
		}
		s.Slope, s.RiseSeconds, s.Rise = Median(slopes), Median(rises), Median(shares)
		out = append(out, s)
	}
	return out
}
