package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/units"
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
// range of the runs.
type Expectation struct {
	Variant string
	analysis.Level
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

// statOf returns the Stat at quantile q, and whether there is one.
func statOf(q float64) (analysis.Stat, bool) {
	for _, s := range analysis.Stats {
		if math.Abs(s.Q-q) < 1e-9 {
			return s, true
		}
	}
	return analysis.Stat{}, false
}

// expectations sets every level of a variant with expect: beside what it
// measured, in Levels order and by quantile within a level.
func (r *Experiment) expectations() []Expectation {
	want := map[string][]analysis.Percentile{}
	for _, v := range r.Exp.Design.Variants {
		want[v.Name] = v.Expect
	}
	var out []Expectation
	for _, l := range r.Levels {
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
				e.Note = naText(c) + ": too few samples"
			default:
				e.judge(c)
			}
			out = append(out, e)
		}
	}
	return out
}

// judge sets the measured side of e from c and decides the verdict.
func (e *Expectation) judge(c analysis.Cell) {
	e.Runs, e.Measured, e.CIOK, e.LowConfidence = len(c.Values), c.Median, c.CIOK, c.LowConfidence
	e.Lo, e.Hi = cellBand(c)
	switch {
	case e.Lo > e.Expected:
		e.Verdict = VerdictAbove
	case e.Hi < e.Expected:
		e.Verdict = VerdictBelow
	default:
		e.Verdict = VerdictWithin
	}
}

// expectText writes the expectations as a table; nothing without any.
func (r *Experiment) expectText(b *strings.Builder) {
	if len(r.Expectations) == 0 {
		return
	}
	b.WriteString("\nExpected (the spec's expect:) against measured: the median over runs with its 95% CI, below 6 runs the\n" +
		"range of the runs; within: the expected value lies inside that interval; above, below: all of it does not.\n\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tlevel\tstat\texpected\tmeasured\tinterval\tratio\tdifference\tverdict")
	var notes []string
	for _, e := range r.Expectations {
		m := expectMeasured(e)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Variant, e.Level, e.Name, units.Seconds(e.Expected),
			m.measured, orDash(m.interval), m.ratio, m.diff, e.Verdict)
		if e.Note != "" && !slices.Contains(notes, e.Variant+" "+e.Name+": "+e.Note) {
			notes = append(notes, e.Variant+" "+e.Name+": "+e.Note)
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintf(b, "  n/a: %s\n", n)
	}
}

// ratioText formats a ratio with three decimals below 10: "1.001×",
// "0.044×", "31.2×".
func ratioText(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.3f×", x)
	}
	return fmt.Sprintf("%.3g×", x)
}

// expectCells are an Expectation's measured side as text.
type expectCells struct{ measured, interval, ratio, diff string }

// expectMeasured formats e's measured side: "30.20ms", "[30.18ms,
// 30.28ms] 95% CI", "0.94×", "−1.80ms"; n/a where there is nothing.
func expectMeasured(e Expectation) expectCells {
	if e.Verdict == VerdictNA {
		return expectCells{"n/a", "", "n/a", "n/a"}
	}
	c := expectCells{measured: units.Seconds(e.Measured), ratio: ratioText(e.Ratio())}
	if e.LowConfidence > 0 {
		c.measured = "~" + c.measured
	}
	c.interval = "[" + units.Seconds(e.Lo) + ", " + units.Seconds(e.Hi) + "] " + e.Interval()
	if e.Runs == 1 {
		c.interval = "1 run"
	}
	c.diff = units.Signed(e.Diff())
	return c
}
