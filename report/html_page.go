package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/units"
)

// htmlView is what html.tmpl renders: every string already formatted, so
// that the template only lays it out.
type htmlView struct {
	Title    string
	CSS      template.CSS
	Facts    []htmlFact
	Sections []htmlSection
	Warnings []string
	Notes    []string // shown first, under the header
	Spec     string
}

type htmlFact struct{ Name, Value string }

// An htmlSection is one heading of the page with its text, tables, plots
// and groups of small plots, in that order.
type htmlSection struct {
	ID, Title string
	Intro     []string
	Tables    []htmlTable
	Plots     []template.HTML // inline <svg> elements
	Groups    []htmlPlotGroup
	Notes     []string
}

// An htmlPlotGroup is a subheading of a section with small plots, several
// to a row.
type htmlPlotGroup struct {
	Title, Intro string
	Code         bool // the title is a name, such as a metric's, set as code
	Plots        []htmlPlot
}

// An htmlPlot is one small plot; a wide one takes a row of its own, room
// for a legend of many lines beside the data instead of over it.
type htmlPlot struct {
	SVG  template.HTML
	Wide bool
}

type htmlTable struct {
	Caption string
	Head    []string
	Rows    [][]htmlCell
}

// An htmlCell is a table cell; Class styles it (num, bad, good, dim) and
// Title is its tooltip.
type htmlCell struct {
	Text, Class, Title string
}

func (r *Experiment) htmlPage(d *Detail) htmlView {
	e := r.Exp
	v := htmlView{Title: "latlab report: " + e.Name, CSS: template.CSS(htmlCSS), Spec: e.Spec, Warnings: r.Warnings, Notes: r.Notes}
	v.Facts = append(v.Facts,
		htmlFact{"Experiment", fmt.Sprintf("%s (id %d)", e.Name, e.ID)},
		htmlFact{"Created", e.CreatedAt.UTC().Format("2006-01-02 15:04:05Z")})
	if p := e.Provenance; p.Host != "" || p.LatlabVersion != "" {
		v.Facts = append(v.Facts, htmlFact{"Host", fmt.Sprintf("%s, latlab %s", orDash(p.Host), orDash(p.LatlabVersion))})
	}
	v.Facts = append(v.Facts, htmlFact{"Runs", r.Runs.String()}, htmlFact{"Baseline", orDash(r.Baseline)})
	if !r.Verdict.SLO.IsZero() {
		v.Facts = append(v.Facts, htmlFact{"SLO", r.Verdict.SLO.String()})
	}
	if len(r.Levels) == 0 {
		v.Sections = append(v.Sections, htmlSection{ID: "summary", Title: "Summary", Intro: []string{"No run has a result yet."}})
		return v
	}
	sum := r.summarySection()
	if len(r.variants) < 2 {
		// Nothing to set against a baseline: no section, one sentence.
		sum.Intro = append(sum.Intro, "One variant only, "+strings.Join(r.variants, "")+
			": there is no other to compare it with, so this report has no overhead section.")
		v.Sections = append(v.Sections, sum)
	} else {
		v.Sections = append(v.Sections, sum, r.overheadSection())
	}
	if len(r.Stops) > 0 {
		v.Sections = append(v.Sections, r.stopsSection())
	}
	if len(r.Expectations) > 0 {
		v.Sections = append(v.Sections, r.expectSection())
	}
	if !r.Verdict.SLO.IsZero() {
		v.Sections = append(v.Sections, r.sloSection())
	}
	v.Sections = append(v.Sections, r.rateSection())
	v.Sections = append(v.Sections, r.detailSections(d)...)
	return v
}

func (r *Experiment) summarySection() htmlSection {
	s := htmlSection{ID: "summary", Title: "Summary", Intro: []string{strings.Join(r.summaryIntro(), " ")}}
	t := htmlTable{Head: []string{"variant", "level"}}
	for _, st := range spec.Stats {
		t.Head = append(t.Head, st.Name)
	}
	t.Head = append(t.Head, "achieved", "errors", "runs", "excluded", "flags")
	for _, l := range r.Levels {
		row := []htmlCell{{Text: l.Variant}, {Text: l.Level.String(), Class: "num"}}
		for _, c := range l.Latency {
			row = append(row, htmlCell{Text: cellText(c), Class: "num"})
		}
		var flags, why []string
		excluding := false // a flag that leaves runs out, not only a note on their percentiles
		for _, f := range r.Flags(l.Variant, l.Level) {
			excluding = excluding || analysis.LeavesOut(f.Name)
			flags = append(flags, fmt.Sprintf("%s×%d", f.Name, f.Count))
			why = append(why, fmt.Sprintf("%s, e.g. run %d: %s", f.Name, f.RunID, f.Example))
		}
		flagCell := htmlCell{Text: orDash(strings.Join(flags, ", ")), Title: strings.Join(why, "\n")}
		switch {
		case excluding:
			flagCell.Class = "bad"
		case len(flags) > 0:
			flagCell.Class = "dim"
		}
		row = append(row, htmlCell{Text: units.Rate(l.Achieved), Class: "num"}, htmlCell{Text: errorsText(l), Class: "num"},
			htmlCell{Text: runsText(l), Class: "num"}, htmlCell{Text: fmt.Sprint(l.Excluded), Class: "num"}, flagCell)
		t.Rows = append(t.Rows, row)
	}
	s.Tables = append(s.Tables, t)
	for _, l := range r.Levels {
		for _, f := range r.Flags(l.Variant, l.Level) {
			s.Notes = append(s.Notes, fmt.Sprintf("%s %s: %s on %d run(s), e.g. run %d: %s", l.Variant, l.Level, f.Name, f.Count, f.RunID, f.Example))
		}
	}
	return s
}

func (r *Experiment) overheadSection() htmlSection {
	s := htmlSection{ID: "overhead", Title: "Overhead against " + r.Baseline}
	if len(r.Overheads) == 0 {
		s.Intro = []string{"No variant to compare with the baseline " + r.Baseline + "."}
		return s
	}
	s.Intro = []string{fmt.Sprintf("%s p is Holm-adjusted within each quantile (%d comparisons each). Significant differences are in bold and marked *.",
		overheadMethods(" "), len(r.Overheads)/len(spec.CompareStats))}
	t := htmlTable{Head: []string{"variant", "level", "stat", r.Baseline, "compared", "overhead", "relative CI", "p", "p (Holm)"}}
	for _, c := range r.Overheads {
		base := "n/a"
		if c.BaselineN > 0 {
			base = units.Seconds(c.Diff.Baseline)
		}
		class := "num"
		if c.Significant {
			class = "num sig"
		}
		rel := "n/a"
		if iv := c.CI(); iv.OK && c.RelOK {
			rel = units.SignedPercent(iv.RelLo, 1) + " to " + units.SignedPercent(iv.RelHi, 1)
		}
		row := []htmlCell{{Text: c.Variant}, {Text: c.Level.String(), Class: "num"}, {Text: c.Name},
			{Text: base, Class: "num"}, {Text: comparedText(c.Diff)}, {Text: c.Diff.String() + sigMark(c.Diff), Class: class}, {Text: rel, Class: "num"},
			{Text: pText(c.P), Class: "num"}, {Text: pText(c.PAdj), Class: "num"}}
		if len(c.Warnings) > 0 {
			row[5].Title = strings.Join(c.Warnings, "\n")
		}
		t.Rows = append(t.Rows, row)
	}
	s.Tables = append(s.Tables, t)
	s.Notes = append(s.Notes, sigLegend)
	return s
}

// expectSection sets the spec's expect: beside what was measured.
func (r *Experiment) expectSection() htmlSection {
	s := htmlSection{ID: "expect", Title: "Expected against measured",
		Intro: []string{"The spec's expect: against the median over runs, judged on its 95% CI (below 6 runs, the range of the runs): " +
			"within when the expected value lies inside that interval, above or below when all of the interval does."}}
	t := htmlTable{Head: []string{"variant", "level", "stat", "expected", "measured", "interval", "ratio", "difference", "verdict"}}
	for _, e := range r.Expectations {
		m := expectMeasured(e)
		verdict := htmlCell{Text: e.Verdict, Title: e.Note}
		if e.Verdict == analysis.VerdictNA {
			verdict.Class = "dim"
		}
		t.Rows = append(t.Rows, []htmlCell{{Text: e.Variant}, {Text: e.Level.String(), Class: "num"}, {Text: e.Name},
			{Text: units.Seconds(e.Expected), Class: "num"}, {Text: m.measured, Class: "num"}, {Text: orDash(m.interval), Class: "num"},
			{Text: m.ratio, Class: "num"}, {Text: m.diff, Class: "num"}, verdict})
	}
	s.Tables = append(s.Tables, t)
	for _, e := range r.Expectations {
		if n := e.Variant + " " + e.Name + ": " + e.Note; e.Note != "" && !slices.Contains(s.Notes, n) {
			s.Notes = append(s.Notes, n)
		}
	}
	return s
}

func (r *Experiment) sloSection() htmlSection {
	var b strings.Builder
	r.sloText(&b)
	s := htmlSection{ID: "slo", Title: "SLO " + r.Verdict.SLO.String()}
	for line := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			s.Intro = append(s.Intro, line)
		}
	}
	return s
}

// pText formats a p-value, n/a when there is none.
func pText(p float64) string {
	if math.IsNaN(p) {
		return "n/a"
	}
	return fmt.Sprintf("%.3g", p)
}
