package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// A planCell is one variant at one level of an experiment's plan.
type planCell struct {
	Variant string
	analysis.Level
}

// plan returns the cells of exp's plan, variants in the spec's order
// then as first run, levels increasing, and the repetitions of each: the
// variants of exp's Design at their planned levels, Runs times. What the
// stored runs show widens it, so that a spec that gives no Design (an
// attack's command line) plans what was run. Under runs: auto a cell
// plans the repetitions it ran (see autoReps).
func plan(exp *analysis.Experiment) (cells []planCell, reps func(planCell) int) {
	cells, most := planCells(exp)
	if exp.Design.AutoMin > 0 {
		return cells, autoReps(exp)
	}
	return cells, func(planCell) int { return most }
}

// planCells returns the cells of exp's plan, as plan does, and the most
// repetitions of a number of runs.
func planCells(exp *analysis.Experiment) (cells []planCell, reps int) {
	reps = max(1, exp.Design.Runs)
	var order []string
	levels := map[string][]analysis.Level{}
	add := func(variant string, l analysis.Level) {
		if !slices.Contains(order, variant) {
			order = append(order, variant)
		}
		if !slices.Contains(levels[variant], l) {
			levels[variant] = append(levels[variant], l)
		}
	}
	for _, v := range exp.Design.Variants {
		for _, l := range v.Levels {
			add(v.Name, l)
		}
	}
	for _, r := range stored(exp) {
		add(r.Variant, r.Level)
		reps = max(reps, r.Rep)
	}
	for _, v := range order {
		ls := levels[v]
		slices.SortFunc(ls, analysis.Level.Compare)
		for _, l := range ls {
			cells = append(cells, planCell{v, l})
		}
	}
	return cells, reps
}

// stored returns every stored run of exp, with a result or without.
func stored(exp *analysis.Experiment) []analysis.Run {
	return slices.Concat(exp.Runs, exp.Unmeasured)
}

// checkStored compares what is stored with the plan: it sets each
// level's Planned and the counts of planned, missing and unreadable runs,
// and returns warnings naming the runs whose stored data is gone or
// inconsistent, most severe first. A planned run without a row is lost
// when a run later in the plan has one; past the last run stored, it has
// not run yet.
func (r *Experiment) checkStored() []string {
	exp := r.Exp
	cells, repsOf := plan(exp)
	have := map[store.Trial]bool{}
	last, first := -1, -1
	for _, run := range stored(exp) {
		have[run.Trial] = true
		last = max(last, run.Position)
		if first < 0 || run.Position < first {
			first = run.Position
		}
	}
	missing := map[planCell][]int{} // the reps of each cell without a row
	for _, c := range cells {
		for rep := 1; rep <= repsOf(c); rep++ {
			if !have[store.Trial{Variant: c.Variant, Level: c.Level, Rep: rep}] {
				missing[c] = append(missing[c], rep)
				r.Runs.Missing++
			}
		}
		r.Runs.Planned += repsOf(c)
	}
	unreadable := 0
	for i := range r.Levels {
		r.Levels[i].Planned = repsOf(planCell{r.Levels[i].Variant, r.Levels[i].Level})
		unreadable += len(r.Levels[i].Unreadable)
	}
	r.Runs.Unreadable += unreadable
	warns := r.unreadableWarnings(unreadable)
	if exp.Design.AutoMin > 0 {
		return append(warns, r.autoStored(cells, missing, repsOf)...)
	}
	if r.Runs.Missing == 0 {
		return warns
	}
	return append(warns, r.missingWarnings(cells, missing, repsOf, first, last)...)
}

// unreadableWarnings name the runs whose stored data is missing or
// inconsistent, unreadable of them, and the runs marked done without a
// result.
func (r *Experiment) unreadableWarnings(unreadable int) []string {
	exp := r.Exp
	var warns []string
	if n := len(exp.Runs); n > 0 && unreadable == n {
		warns = append(warns, fmt.Sprintf("no run can be read: the stored histograms of all %d run(s) with a result are missing "+
			"or disagree with their request counts, so every percentile is n/a", n))
	}
	for _, run := range exp.Unmeasured {
		if run.Status == store.Done {
			warns = append(warns, fmt.Sprintf("run %d (%s %s rep %d) is marked done but has no result stored: left out",
				run.ID, run.Variant, run.Level, run.Rep))
		}
	}
	for _, l := range r.Levels {
		if len(l.Unreadable) == 0 {
			continue
		}
		var runs []string
		for _, id := range l.Unreadable {
			run := r.runs[id]
			runs = append(runs, fmt.Sprintf("run %d (rep %d, %s): %s", id, run.Rep, run.Status, strings.Join(run.Defects, ", ")))
		}
		warns = append(warns, fmt.Sprintf("%s %s: %d run(s) left out, their stored data missing or inconsistent: %s",
			l.Variant, l.Level, len(runs), strings.Join(runs, "; ")))
	}
	return warns
}

// missingWarnings tell the planned runs without a row that were lost,
// before the last run stored at plan position last, from those that have
// not run yet. first is the first position stored.
func (r *Experiment) missingWarnings(cells []planCell, missing map[planCell][]int, repsOf func(planCell) int, first, last int) []string {
	// The runner numbers the plan from 1 (a file written by other means
	// may count from 0) and stores each trial as it ends, in plan order.
	end := r.Runs.Planned
	if first == 0 {
		end--
	}
	notYet := min(max(end-last, 0), r.Runs.Missing)
	lost := r.Runs.Missing - notYet
	var warns []string
	if lost > 0 {
		for _, c := range cells {
			if miss := missing[c]; len(miss) > 0 {
				warns = append(warns, fmt.Sprintf("%s %s: %d of %d planned run(s) not stored: %s", c.Variant, c.Level, len(miss), repsOf(c), repList(miss)))
			}
		}
	}
	switch {
	case notYet == 0:
		warns = append(warns, fmt.Sprintf("%d planned run(s) have no row in the database, though the experiment ran to its last trial: "+
			"lost or deleted, and left out of every number", lost))
	case lost == 0:
		warns = append(warns, fmt.Sprintf("the experiment has not finished: %d of %d planned runs have not run yet (latlab run resumes it)",
			notYet, r.Runs.Planned))
	default:
		warns = append(warns, fmt.Sprintf("%d planned run(s) have no row in the database, %d of them before the last run stored: "+
			"those are lost or deleted; the others have not run yet (latlab run resumes the experiment)", r.Runs.Missing, lost))
	}
	return warns
}

// repList names repetitions: "rep 2", "reps 1, 3".
func repList(reps []int) string {
	s := make([]string, len(reps))
	for i, n := range reps {
		s[i] = fmt.Sprint(n)
	}
	if len(reps) == 1 {
		return "rep " + s[0]
	}
	return "reps " + strings.Join(s, ", ")
}
