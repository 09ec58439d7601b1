package report

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/units"
)

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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", textsafe.Escape(e.Variant), e.Level, textsafe.Escape(e.Name), units.Seconds(e.Expected),
			m.measured, orDash(m.interval), m.ratio, m.diff, e.Verdict)
		if e.Note != "" && !slices.Contains(notes, e.Variant+" "+e.Name+": "+e.Note) {
			notes = append(notes, e.Variant+" "+e.Name+": "+e.Note)
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintf(b, "  n/a: %s\n", textsafe.Escape(n))
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
func expectMeasured(e analysis.Expectation) expectCells {
	if e.Verdict == analysis.VerdictNA {
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
