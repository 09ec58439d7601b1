package analysis

import (
	"fmt"
	"math"

	"github.com/latlab/latlab/spec"
)

// Verdicts of an Expectation.
const (
	VerdictWithin = "within" // the expected value lies inside the interval
	VerdictAbove  = "above"  // the whole interval lies above the expected value
	VerdictBelow  = "below"  // the whole interval lies below it
	VerdictNA     = "n/a"    // nothing measured to judge
)

// An Expectation is one percentile of a variant's expect: field set
// beside what a level measured. Measured is the median over the counted
// runs of each run's percentile; the verdict is judged on an interval
// around it, never on the point: its 95% CI from 6 runs up, else the
// range of the runs (Cell.Band).
type Expectation struct {
	Variant string
	Level
	Name     string  // the percentile as the report names it: "p50", "p99.9", "max"
	Q        float64 // 0.5, 0.999, 1
	Expected float64 // seconds
	Runs     int     // counted runs with a value
	Measured float64 // seconds; NaN when n/a
	// Lo and Hi bound Measured: its 95% CI when CIOK, else the lowest and
	// highest run; NaN when n/a.
	Lo, Hi float64
	CIOK   bool
	// LowConfidence counts the runs that read the percentile from few
	// samples.
	LowConfidence int
	Verdict       string // VerdictWithin, VerdictAbove, VerdictBelow or VerdictNA
	Note          string // why the verdict is VerdictNA
}

// Ratio is Measured / Expected; NaN when n/a.
func (e Expectation) Ratio() float64 { return e.Measured / e.Expected }

// Diff is Measured − Expected in seconds; NaN when n/a.
func (e Expectation) Diff() float64 { return e.Measured - e.Expected }

// Interval names what the verdict was judged on: "95% CI", "range of 5
// runs", or "" when n/a.
func (e Expectation) Interval() string {
	switch {
	case e.Verdict == VerdictNA:
		return ""
	case e.CIOK:
		return "95% CI"
	case e.Runs == 1:
		return "1 run"
	}
	return fmt.Sprintf("range of %d runs", e.Runs)
}

// Expectations sets every level of levels whose variant expects
// percentiles in design (its expect: field) beside what the level
// measured, in levels' order and by the design's order within a level. A
// percentile that is not among Stats, or n/a at the level, is VerdictNA
// with a Note saying why.
func Expectations(levels []LevelResult, design spec.Design) []Expectation {
	want := map[string][]spec.Percentile{}
	for _, v := range design.Variants {
		want[v.Name] = v.Expect
	}
	var out []Expectation
	for _, l := range levels {
		for _, p := range want[l.Variant] {
			e := Expectation{Variant: l.Variant, Level: l.Level, Name: p.Name, Q: p.Q, Expected: p.Latency.Seconds(),
				Measured: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Verdict: VerdictNA}
			st, read := statOf(p.Q)
			c, _ := l.Cell(st.Name)
			switch {
			case !read:
				e.Note = p.Name + " is not among the percentiles read from every run (" + statNames() + ")"
			case len(l.RunIDs) == 0:
				e.Note = "no runs counted"
			case len(c.Values) == 0:
				e.Note = c.NAText() + ": too few samples"
			default:
				e.judge(c)
			}
			out = append(out, e)
		}
	}
	return out
}

// statOf returns the Stat at quantile q, and whether there is one.
func statOf(q float64) (spec.Stat, bool) {
	for _, s := range spec.Stats {
		if math.Abs(s.Q-q) < 1e-9 {
			return s, true
		}
	}
	return spec.Stat{}, false
}

// judge sets the measured side of e from c and decides the verdict.
func (e *Expectation) judge(c Cell) {
	e.Runs, e.Measured, e.CIOK, e.LowConfidence = len(c.Values), c.Median, c.CIOK, c.LowConfidence
	e.Lo, e.Hi = c.Band()
	switch {
	case e.Lo > e.Expected:
		e.Verdict = VerdictAbove
	case e.Hi < e.Expected:
		e.Verdict = VerdictBelow
	default:
		e.Verdict = VerdictWithin
	}
}
