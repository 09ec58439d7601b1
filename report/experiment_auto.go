package report

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/analysis"
)

// autoReps returns the repetitions each cell of exp, an experiment under
// runs: auto, planned: those it ran before it stopped (a variant's, see
// analysis.Stop; the baseline's, the most of its level's variants'), at
// least the min and the highest stored. Before every cell has stopped,
// what is stored is all a report can know of the plan.
func autoReps(exp *analysis.Experiment) func(planCell) int {
	stops, _ := analysis.StoredStops(exp.Provenance) // NewExperiment warns of a bad one
	highest := map[planCell]int{}
	for _, r := range stored(exp) {
		c := planCell{r.Variant, r.Level}
		highest[c] = max(highest[c], r.Rep)
	}
	for _, st := range stops {
		c := planCell{st.Variant, st.Level()}
		highest[c] = max(highest[c], st.Runs)
		if b := (planCell{exp.Design.Baseline, st.Level()}); b != c {
			highest[b] = max(highest[b], st.Runs)
		}
	}
	return func(c planCell) int { return max(exp.Design.AutoMin, highest[c]) }
}

// autoStored warns of the runs of an experiment under runs: auto that
// are missing: before every cell has stopped, that it has not finished;
// after, the runs below a cell's last that have no row.
func (r *Experiment) autoStored(cells []planCell, missing map[planCell][]int, repsOf func(planCell) int) []string {
	if _, ok := r.Exp.Provenance.Extra[analysis.StopsKey]; !ok {
		return []string{"runs: auto has not finished: some variants and levels may run more repetitions (latlab run goes on with the experiment)"}
	}
	var warns []string
	for _, c := range cells {
		if miss := missing[c]; len(miss) > 0 {
			warns = append(warns, fmt.Sprintf("%s %s: %d of %d run(s) not stored: %s: lost or deleted, and left out of every number",
				c.Variant, c.Level, len(miss), repsOf(c), repList(miss)))
		}
	}
	return warns
}

// stopsIntro says what the table of r.Stops is.
func (r *Experiment) stopsIntro() string {
	return "runs: auto repeated each variant and level until its overheads' 95% intervals were no wider than the goal, " +
		"its baseline's runs beside it; why each stopped, with the widths then (flagged runs count towards the most repetitions, not towards precision):"
}

// stopsText writes why each cell of an experiment under runs: auto
// stopped, when it has.
func (r *Experiment) stopsText(b *strings.Builder) {
	if len(r.Stops) == 0 {
		return
	}
	b.WriteString("\nRepetitions: " + r.stopsIntro() + "\n")
	for _, s := range r.Stops {
		fmt.Fprintf(b, "  %s\n", s)
	}
}

// stopsSection is stopsText's table in the HTML page.
func (r *Experiment) stopsSection() htmlSection {
	s := htmlSection{ID: "repetitions", Title: "Repetitions", Intro: []string{r.stopsIntro()}}
	t := htmlTable{Head: []string{"variant", "level", "runs", "left out", "stopped", "widths"}}
	for _, st := range r.Stops {
		ws := make([]string, len(st.Widths))
		for i, w := range st.Widths {
			ws[i] = w.String()
		}
		stopped := htmlCell{Text: string(st.Reason)}
		if st.Reason == analysis.StopMax || st.Reason == analysis.StopBudget {
			stopped.Class = "bad"
		}
		t.Rows = append(t.Rows, []htmlCell{{Text: st.Variant}, {Text: st.Level().String(), Class: "num"},
			{Text: fmt.Sprint(st.Runs), Class: "num"}, {Text: fmt.Sprint(st.LeftOut), Class: "num"}, stopped, {Text: orDash(strings.Join(ws, ", "))}})
	}
	s.Tables = append(s.Tables, t)
	return s
}

// fewRuns says how to settle the overheads too few runs leave without an
// interval or a test able to reject, in an experiment latlab run ran; ""
// when there are none.
func (r *Experiment) fewRuns() string {
	n := 0
	for _, c := range r.Overheads {
		if c.Reason == analysis.ReasonFewRuns {
			n++
		}
	}
	if n == 0 || r.Exp.Design.Runs == 0 {
		return ""
	}
	return fmt.Sprintf("%d overhead row(s) inconclusive with too few runs: %s (runs: auto repeats until the intervals are narrow enough)", n, analysis.RaiseRuns)
}
