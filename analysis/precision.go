package analysis

import (
	"fmt"
	"math"
	"slices"

	"github.com/latlab/latlab/units"
)

// A Precision is how narrow an overhead's 95% interval must be: at most
// Ratio of the baseline's value of its quantile at its level, or, when
// Ratio is 0, at most Width seconds. A study repeats its runs until its
// overheads are this precise (runs: auto).
type Precision struct {
	Ratio float64
	Width float64 // seconds
}

// Goal returns the widest interval p allows d, in seconds; 0 when p is a
// ratio of a baseline d has no value for.
func (p Precision) Goal(d Diff) float64 {
	if p.Ratio == 0 {
		return p.Width
	}
	if math.IsNaN(d.Baseline) || d.Baseline <= 0 {
		return 0
	}
	return p.Ratio * d.Baseline
}

// A Width is how wide one overhead's 95% interval is against the goal a
// Precision sets it, in seconds.
type Width struct {
	Stat string `json:"stat"`
	// CI is false when the overhead has no interval (too few runs or
	// pairs, a side n/a); Width is then 0.
	CI    bool    `json:"ci"`
	Width float64 `json:"width_seconds"`
	Goal  float64 `json:"goal_seconds"` // 0 when the baseline has no value to take a share of
	OK    bool    `json:"precise"`      // an interval no wider than a goal
}

// String says w: "p99 width 40µs ≤ 52µs", "p50 without a 95% CI".
func (w Width) String() string {
	switch {
	case !w.CI:
		return w.Stat + " without a 95% CI"
	case w.Goal == 0:
		return fmt.Sprintf("%s width %s, no goal (the baseline's %s is n/a)", w.Stat, units.Seconds(w.Width), w.Stat)
	case w.OK:
		return fmt.Sprintf("%s width %s ≤ %s", w.Stat, units.Seconds(w.Width), units.Seconds(w.Goal))
	}
	return fmt.Sprintf("%s width %s > %s", w.Stat, units.Seconds(w.Width), units.Seconds(w.Goal))
}

// Judge measures d's interval against p. It reads the interval's width
// alone, never where it lies nor the test: runs that stopped once a
// difference looked significant, or looked like none, would find what
// they stopped on more often than it is there; the width does not depend
// on the difference (the Hodges–Lehmann interval shifts with it whole).
func (p Precision) Judge(d Diff) Width {
	w := Width{CI: d.CIOK && !math.IsNaN(d.Abs), Goal: p.Goal(d)}
	if w.CI {
		w.Width = d.AbsHi - d.AbsLo
		w.OK = w.Goal > 0 && w.Width <= w.Goal
	}
	return w
}

// A CellKey names a variant at one level.
type CellKey struct {
	Variant string
	Level
}

// Widths judges, against p, the overheads at quantiles (of CompareStats)
// of every variant of runs but baseline at each level the baseline ran,
// as a report compares them (Aggregate of the valid runs, Overheads):
// paired by repetition where there are enough pairs. A variant at a level
// without runs of its own has none.
func Widths(runs []Run, baseline string, p Precision, quantiles []string) map[CellKey][]Width {
	out := map[CellKey][]Width{}
	for _, c := range Overheads(Aggregate(runs, Options{}), baseline) {
		if !slices.Contains(quantiles, c.Name) {
			continue
		}
		w := p.Judge(c.Diff)
		w.Stat = c.Name
		k := CellKey{c.Variant, c.Level}
		out[k] = append(out[k], w)
	}
	return out
}

// Precise reports whether every width of ws meets its goal; false
// without any.
func Precise(ws []Width) bool {
	return len(ws) > 0 && !slices.ContainsFunc(ws, func(w Width) bool { return !w.OK })
}
