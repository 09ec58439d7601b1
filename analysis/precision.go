package analysis

import (
	"fmt"
	"math"
	"slices"

	"github.com/latlab/latlab/units"
)

// A Precision is how narrow an overhead's 95% interval must be: at most
// Ratio of the baseline's value of its quantile at its level, or, when
// Ratio is 0, at most Width seconds; or, when Relative is above 0, at
// most Relative of the overhead's own size. A study repeats its runs
// until its overheads are this precise (runs: auto).
//
// Relative tells a large overhead well enough long before its interval
// is a tenth of the baseline: "+95µs [+68, +131]" answers the question.
// It reads where the interval lies, but at Relative ½ only an interval
// whose low end is about three quarters of its centre or more passes, far
// further from zero than a test at 5% asks (a z of about 8, against 2),
// so an overhead that is not there stops on it next to never, and the
// rule keeps what stopping on the width alone keeps: false alarms at
// their level, and coverage (analysis/sim_auto_test.go).
type Precision struct {
	Ratio    float64
	Width    float64 // seconds
	Relative float64 // share of the overhead's absolute size; 0: none
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
	// Relative is the widest the interval may be as a share of the
	// overhead's size (Precision.Relative), in seconds; 0 without one.
	Relative float64 `json:"relative_goal_seconds,omitempty"`
	Share    float64 `json:"relative,omitempty"` // Precision.Relative, for saying it
	OK       bool    `json:"precise"`            // an interval no wider than a goal
}

// String says w: "p99 width 40µs ≤ 52µs", "p50 width 30µs ≤ 48µs (50%
// of the overhead)", "p50 width 62µs > 2.9µs and > 48µs (50% of the
// overhead)", "p50 without a 95% CI".
func (w Width) String() string {
	if !w.CI {
		return w.Stat + " without a 95% CI"
	}
	width := units.Seconds(w.Width)
	rel := ""
	if w.Share > 0 {
		rel = fmt.Sprintf("%s (%s of the overhead)", units.Seconds(w.Relative), units.Percent(w.Share, 0))
	}
	switch {
	case w.Goal > 0 && w.Width <= w.Goal:
		return fmt.Sprintf("%s width %s ≤ %s", w.Stat, width, units.Seconds(w.Goal))
	case w.OK:
		return fmt.Sprintf("%s width %s ≤ %s", w.Stat, width, rel)
	case w.Goal == 0 && rel == "":
		return fmt.Sprintf("%s width %s, no goal (the baseline's %s is n/a)", w.Stat, width, w.Stat)
	case w.Goal == 0:
		return fmt.Sprintf("%s width %s > %s, the baseline's %s n/a", w.Stat, width, rel, w.Stat)
	case rel == "":
		return fmt.Sprintf("%s width %s > %s", w.Stat, width, units.Seconds(w.Goal))
	}
	return fmt.Sprintf("%s width %s > %s and > %s", w.Stat, width, units.Seconds(w.Goal), rel)
}

// Judge measures d's interval against p. Against Ratio or Width it
// reads the interval's width alone, never where it lies nor the test:
// runs that stopped once a difference looked significant, or looked like
// none, would find what they stopped on more often than it is there; the
// width does not depend on the difference (the Hodges–Lehmann interval
// shifts with it whole). Against Relative it reads the width beside the
// overhead's size, a bar far above significance (see Precision).
func (p Precision) Judge(d Diff) Width {
	w := Width{CI: d.CIOK && !math.IsNaN(d.Abs), Goal: p.Goal(d)}
	if w.CI {
		w.Width = d.AbsHi - d.AbsLo
		if p.Relative > 0 {
			w.Relative, w.Share = p.Relative*math.Abs(d.Abs), p.Relative
		}
		w.OK = w.Goal > 0 && w.Width <= w.Goal || w.Relative > 0 && w.Width <= w.Relative
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
