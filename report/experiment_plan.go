package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// specLoad is what a stored spec's load (or a variant's override of it)
// tells of the plan's levels. A nil field was not given.
type specLoad struct {
	Mode        *string   `yaml:"mode"`
	Rates       []float64 `yaml:"rates"`
	Concurrency []int     `yaml:"concurrency"`
}

// over returns l with o's fields in their place, as a variant's load
// overrides the spec's: rates drop concurrency and the other way round,
// and a mode drops the levels it has no use for.
func (l specLoad) over(o specLoad) specLoad {
	if o.Mode != nil {
		l.Mode = o.Mode
		switch *o.Mode {
		case "open":
			l.Concurrency = nil
		case "closed", "ramp":
			l.Rates = nil
		case "sequential":
			l.Rates, l.Concurrency = nil, nil
		}
	}
	if o.Rates != nil {
		l.Rates, l.Concurrency = o.Rates, nil
	}
	if o.Concurrency != nil {
		l.Concurrency, l.Rates = o.Concurrency, nil
	}
	return l
}

// levels returns the levels l sweeps, as the runner stores them: a rate
// in open mode, a concurrency in closed and ramp modes, one worker in
// sequential mode.
func (l specLoad) levels() []analysis.Level {
	mode := "open"
	if l.Mode != nil {
		mode = *l.Mode
	}
	var out []analysis.Level
	switch mode {
	case "open":
		for _, r := range l.Rates {
			out = append(out, analysis.Level{Rate: r})
		}
	case "closed", "ramp":
		for _, c := range l.Concurrency {
			out = append(out, analysis.Level{Concurrency: c})
		}
	case "sequential":
		out = append(out, analysis.Level{Concurrency: 1})
	}
	return out
}

// A planCell is one variant at one level of an experiment's plan.
type planCell struct {
	Variant string
	analysis.Level
}

// plan returns the cells of exp's plan, variants in the spec's order
// then as first run, levels increasing, and the repetitions of each: the
// stored spec's variants, each at the levels of its load (the spec's with
// the variant's overrides), runs: times. What the stored runs show widens
// it, so that a spec this reader cannot follow (or an attack's command
// line) plans what was run.
func plan(exp *analysis.Experiment) (cells []planCell, reps int) {
	s := readSpec(exp.Spec)
	reps = max(1, s.Runs)
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
	for _, v := range s.Variants {
		if v.Name != "" {
			for _, l := range s.Load.over(v.Load).levels() {
				add(v.Name, l)
			}
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
	cells, reps := plan(exp)
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
		for rep := 1; rep <= reps; rep++ {
			if !have[store.Trial{Variant: c.Variant, Level: c.Level, Rep: rep}] {
				missing[c] = append(missing[c], rep)
				r.Runs.Missing++
			}
		}
	}
	r.Runs.Planned = len(cells) * reps
	unreadable := 0
	for i := range r.Levels {
		r.Levels[i].Planned = reps
		unreadable += len(r.Levels[i].Unreadable)
	}
	r.Runs.Unreadable += unreadable
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
	if r.Runs.Missing == 0 {
		return warns
	}
	// The runner numbers the plan from 1 (a file written by other means
	// may count from 0) and stores each trial as it ends, in plan order.
	end := r.Runs.Planned
	if first == 0 {
		end--
	}
	notYet := min(max(end-last, 0), r.Runs.Missing)
	lost := r.Runs.Missing - notYet
	if lost > 0 {
		for _, c := range cells {
			if miss := missing[c]; len(miss) > 0 {
				warns = append(warns, fmt.Sprintf("%s %s: %d of %d planned run(s) not stored: %s", c.Variant, c.Level, len(miss), reps, repList(miss)))
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
