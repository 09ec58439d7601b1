package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/units"
)

// WriteText writes the report for a terminal: a header, the summary table
// per variant × level, the flags raised, the overhead table against the
// baseline, why runs: auto stopped each variant and level, the spec's
// expect: against what was measured, the SLO's knees
// and violations when an SLO is given, the probe summary when LoadProbes
// has read the probes, the shards of each variant's representative run
// when LoadShards has read them and any was sharded, and the warnings.
func (r *Experiment) WriteText(w io.Writer) error {
	var b strings.Builder
	e := r.Exp
	fmt.Fprintf(&b, "Experiment  %s, id %d, created %s\n", textsafe.Escape(e.Name), e.ID, e.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"))
	if p := e.Provenance; p.Host != "" || p.LatlabVersion != "" {
		fmt.Fprintf(&b, "Host        %s, latlab %s\n", textsafe.Escape(orDash(p.Host)), textsafe.Escape(orDash(p.LatlabVersion)))
	}
	fmt.Fprintf(&b, "Runs        %s\n", r.Runs)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nnote: %s\n", textsafe.Escape(n))
	}
	if len(r.Levels) == 0 {
		b.WriteString("\nNo run has a result yet.\n")
	} else {
		b.WriteString("\n" + strings.Join(r.summaryIntro(), "\n") + "\n\n")
		r.summaryText(&b)
		r.flagsText(&b)
		r.overheadText(&b)
		r.stopsText(&b)
		r.expectText(&b)
		r.sloText(&b)
		r.probeText(&b)
		r.shardText(&b)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "\nwarning: %s", textsafe.Escape(warn))
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
	return err
}

// escapeCells returns cells, each escaped for a terminal.
func escapeCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = textsafe.Escape(c)
	}
	return out
}

// summaryIntro says what a cell of the summary table is, in lines.
func (r *Experiment) summaryIntro() []string {
	counted := "the valid runs (flagged ones left out)"
	if r.IncludeFlagged {
		counted = "all runs, flagged ones included"
	}
	return []string{
		"Latency from each request's intended send: each cell is the median of one percentile",
		"over " + counted + ", with its 95% CI [lo, hi] from 6 runs up;",
		"n/a when any of those runs has too few samples for it; ~ marks one read from few samples.",
	}
}

func (r *Experiment) summaryText(b *strings.Builder) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "variant\tlevel\t")
	for _, s := range spec.Stats {
		fmt.Fprintf(tw, "%s\t", s.Name)
	}
	fmt.Fprintln(tw, "achieved\terrors\truns\texcluded\tflags")
	for _, l := range r.Levels {
		fmt.Fprintf(tw, "%s\t%s\t", textsafe.Escape(l.Variant), l.Level)
		for _, c := range l.Latency {
			fmt.Fprintf(tw, "%s\t", cellText(c))
		}
		var flags []string
		for _, f := range r.Flags(l.Variant, l.Level) {
			flags = append(flags, fmt.Sprintf("%s×%d", textsafe.Escape(f.Name), f.Count))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", units.Rate(l.Achieved), errorsText(l), runsText(l), l.Excluded,
			orDash(strings.Join(flags, ",")))
	}
	tw.Flush()
}

// cellText formats a median over runs with its CI: "201µs [199µs, 203µs]",
// "~1.2ms" from few samples, "n/a" in every run or without runs, "n/a in
// 2 of 5 runs" when some runs have too few samples for the quantile.
func cellText(c analysis.Cell) string {
	if len(c.Values) == 0 {
		if c.NA > 0 && c.NA < c.Runs {
			return c.NAText()
		}
		return "n/a"
	}
	s := units.Seconds(c.Median)
	if c.LowConfidence > 0 {
		s = "~" + s
	}
	if c.CIOK {
		s += " [" + units.Seconds(c.Lo) + ", " + units.Seconds(c.Hi) + "]"
	}
	return s
}

// runsText says how many runs a row stands on: "6", or "2 of 3" when
// fewer than the plan holds.
func runsText(l analysis.LevelResult) string {
	if n := len(l.RunIDs); l.Planned > n {
		return fmt.Sprintf("%d of %d", n, l.Planned)
	}
	return fmt.Sprint(len(l.RunIDs))
}

func errorsText(l analysis.LevelResult) string {
	if len(l.RunIDs) == 0 {
		return "n/a"
	}
	return units.Percent(l.ErrorRatio, 2)
}

func (r *Experiment) flagsText(b *strings.Builder) {
	first := true
	for _, l := range r.Levels {
		for _, f := range r.Flags(l.Variant, l.Level) {
			if first {
				b.WriteString("\nValidity flags\n")
				first = false
			}
			fmt.Fprintf(b, "  %s %s: %s on %d run(s), e.g. run %d: %s\n", textsafe.Escape(l.Variant), l.Level, textsafe.Escape(f.Name), f.Count, f.RunID, textsafe.Escape(f.Example))
		}
	}
}

func (r *Experiment) overheadText(b *strings.Builder) {
	if len(r.Overheads) == 0 {
		fmt.Fprintf(b, "\nOverhead: no variant to compare with the baseline %s\n", textsafe.Escape(r.Baseline))
		return
	}
	fmt.Fprintf(b, "\nOverhead against %s, p Holm-adjusted within each quantile (%d comparisons each).\n%s\n\n",
		textsafe.Escape(r.Baseline), len(r.Overheads)/len(spec.CompareStats), overheadMethods("\n"))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\tlevel\tstat\t%s\tcompared\toverhead\n", textsafe.Escape(r.Baseline))
	for _, c := range r.Overheads {
		base := "n/a"
		if c.BaselineN > 0 {
			base = units.Seconds(c.Diff.Baseline)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\n", textsafe.Escape(c.Variant), c.Level, c.Name, base, comparedText(c.Diff), c.Diff, sigMark(c.Diff))
	}
	tw.Flush()
	b.WriteString(sigLegend + "\n")
}

func (r *Experiment) sloText(b *strings.Builder) {
	if r.Verdict.SLO.IsZero() {
		return
	}
	judged := "the 95% CI's lower bound (below 6 runs, the lowest run)"
	if r.Verdict.Strict {
		judged = "the median over runs (strict)"
	}
	fmt.Fprintf(b, "\nSLO %s, judged on %s\n", r.Verdict.SLO.String(), judged)
	b.WriteString("Knee: the highest level meeting it on medians, counting up from the lowest\n")
	for _, k := range r.Verdict.Knees {
		k.Variant = textsafe.Escape(k.Variant)
		switch {
		case !k.Met && k.Failed != nil:
			fmt.Fprintf(b, "  %s: fails at the lowest level, %s\n", k.Variant, k.Failed)
		case !k.Met:
			fmt.Fprintf(b, "  %s: no level to judge\n", k.Variant)
		case k.Failed == nil:
			fmt.Fprintf(b, "  %s: meets it at every level, up to %s\n", k.Variant, k.Level)
		default:
			fmt.Fprintf(b, "  %s: meets it up to %s, fails at %s\n", k.Variant, k.Level, k.Failed)
		}
	}
	if len(r.Verdict.Violations) == 0 {
		b.WriteString("Violations: none\n")
		return
	}
	fmt.Fprintf(b, "Violations: %d\n", len(r.Verdict.Violations))
	var v strings.Builder
	_ = r.WriteViolations(&v)
	for line := range strings.Lines(v.String()) {
		b.WriteString("  " + line)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
