package demo

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/units"
)

// headlineStats are the percentiles the headline compares: the median,
// where what a hop costs every request shows, and p90, where the delay
// that one request in five gets shows.
var headlineStats = []string{"p50", "p90"}

// writeHeadline prints the overhead of each variant against the baseline
// at the headline's percentiles, the ramp's latency at its top, and where
// the reports and the specs are.
func writeHeadline(w io.Writer, rs reports, out Outcome, sweepSpec string) error {
	var b strings.Builder
	r := rs.sweep
	fmt.Fprintf(&b, "Overhead against %s: the shift of each variant's per-run percentile (Hodges–Lehmann)\n", r.Baseline)
	b.WriteString("with its CI; * marks a significant one (Mann-Whitney, p < 0.05 once Holm-corrected over\n")
	b.WriteString("the rows). Each CI is at the level Holm tests its row at, so it excludes 0 exactly when\n")
	b.WriteString("the row has a *.\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "variant\tlevel")
	for _, s := range headlineStats {
		fmt.Fprintf(tw, "\t%s %s\t%s overhead", r.Baseline, s, s)
	}
	fmt.Fprintln(tw)
	runs := math.MaxInt
	var why []string
	for _, row := range headlineRows(r.Overheads) {
		fmt.Fprintf(tw, "%s\t%s", row[0].Variant, row[0].Level)
		for _, c := range row {
			base := "n/a"
			if c.BaselineN > 0 {
				base = units.Seconds(c.Diff.Baseline)
			}
			fmt.Fprintf(tw, "\t%s\t%s", base, diffText(c.Diff))
			if c.N > 0 && c.BaselineN > 0 {
				runs = min(runs, c.N, c.BaselineN)
			}
			if w := whyLine(c.Diff); w != "" && !slices.Contains(why, w) {
				why = append(why, w)
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, w := range why {
		fmt.Fprintf(&b, "\n%s", w)
	}
	if len(why) > 0 {
		b.WriteString("\n")
	}
	// What the design cannot show, and the runs left out: the report's
	// first warnings.
	for _, n := range rs.notes {
		b.WriteString("\n" + n + "\n")
	}
	if len(why) == 0 && len(rs.notes) == 0 && runs < analysis.MinRuns {
		fmt.Fprintf(&b, "\n%d valid runs a side: fewer than %d, so the tests are weak and the intervals wide.\n", runs, analysis.MinRuns)
	}
	if line := rampLine(rs.ramp); line != "" {
		b.WriteString("\n" + line + "\n")
	}
	if n := out.Failed(); n > 0 {
		fmt.Fprintf(&b, "\n%d trial(s) failed: see %s and latlab ls %s.\n", n, filepath.Join(out.Dir, NodeLogFile), out.DB)
	}
	fmt.Fprintf(&b, "\nThe report: %s\nThe ramp's: %s\n", out.Report, out.RampReport)
	fmt.Fprintf(&b, "Its inputs are in %s: latlab run %s -o again.db runs the study again.\n",
		out.Dir, filepath.Join(out.Dir, sweepSpec))
	_, err := io.WriteString(w, b.String())
	return err
}

// headlineRows groups the comparisons at headlineStats by variant and
// level, in the table's order; a row lacks none of the stats.
func headlineRows(cs []analysis.Comparison) [][]analysis.Comparison {
	var rows [][]analysis.Comparison
	for _, c := range cs {
		if c.Name != headlineStats[0] {
			continue
		}
		row := []analysis.Comparison{c}
		for _, s := range headlineStats[1:] {
			i := slices.IndexFunc(cs, func(o analysis.Comparison) bool {
				return o.Variant == c.Variant && o.Level == c.Level && o.Name == s
			})
			if i < 0 {
				row = nil
				break
			}
			row = append(row, cs[i])
		}
		if row != nil {
			rows = append(rows, row)
		}
	}
	return rows
}

// diffText formats an overhead: "+118µs [+80.0µs, +160µs] *", "+118µs
// (CI n/a: 3 against 3 runs)", "+118µs [+80.0µs, +160µs] (untestable: 5
// against 5 runs)", or "n/a: all runs flagged" without runs to compare;
// whyLine says the reason in full.
func diffText(d analysis.Diff) string {
	if math.IsNaN(d.Abs) {
		switch d.Reason {
		case analysis.ReasonFlagged:
			return "n/a: all runs flagged"
		case analysis.ReasonNA:
			return "n/a: too few samples"
		}
		return "n/a"
	}
	s := units.Signed(d.Abs)
	runs := fmt.Sprintf("%d against %d runs", d.N, d.BaselineN)
	switch iv := d.CI(); {
	case iv.OK:
		s += " [" + units.Signed(iv.Lo) + ", " + units.Signed(iv.Hi) + "]"
	case d.Reason == analysis.ReasonFewRuns:
		s += " (CI n/a: " + runs + ")"
	default:
		s += " (CI n/a)"
	}
	if d.Significant {
		s += " *"
	} else if d.Reason == analysis.ReasonFewRuns && d.CI().OK {
		s += " (untestable: " + runs + ")"
	}
	return s
}

// whyLine says why an overhead is n/a or inconclusive, "" when it is
// neither.
func whyLine(d analysis.Diff) string {
	switch {
	case d.Reason == "":
		return ""
	case math.IsNaN(d.Abs):
		return "n/a: " + d.Why() + "."
	}
	return "Inconclusive " + d.Why() + "."
}

// rampLine says how the ramp's top went: its latency and throughput and
// the flags its run raised.
func rampLine(r *report.Experiment) string {
	if r == nil || len(r.Levels) == 0 {
		return ""
	}
	l := r.Levels[0]
	var parts []string
	for _, name := range []string{"p50", "p99"} {
		if c, ok := l.Cell(name); ok && len(c.Values) > 0 {
			parts = append(parts, name+" "+units.Seconds(c.Median))
		}
	}
	line := fmt.Sprintf("Ramp: %s stepped up to %d requests in flight", l.Variant, l.Concurrency)
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if !math.IsNaN(l.Achieved) {
		line += " at " + units.Rate(l.Achieved)
	}
	var flags []string
	for _, f := range r.Flags(l.Variant, l.Level) {
		flags = append(flags, f.Name)
	}
	if len(flags) > 0 {
		line += " (flagged " + strings.Join(flags, ", ") + ", as a ramp to saturation is)"
	}
	return line
}
