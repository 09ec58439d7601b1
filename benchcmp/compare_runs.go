package benchcmp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/store"
)

// A RunSet is one side of CompareRuns: the runs of an experiment, or of
// one of its variants.
type RunSet struct {
	// Name heads the side's column: the argument as the user gave it,
	// such as "results.db:plain".
	Name string
	// Experiment names the experiment the runs come from; "" leaves it
	// out of the tables' configuration.
	Experiment string
	Runs       []analysis.Run
	// Variant picks the runs of one variant; "" takes every variant.
	Variant string
}

// RunsOptions configures CompareRuns. The zero value is benchstat's
// statistics over valid runs only.
type RunsOptions struct {
	BenchOptions
	// IncludeFlagged counts flagged and unfinished runs too.
	IncludeFlagged bool
}

// CompareRuns compares the latency of two sets of stored runs as
// CompareBench compares two `go test -bench` outputs: the per-run
// percentiles of a variant at a level are its samples, as the -count
// runs of a benchmark are. There is one table per quantile of
// CompareStats, in seconds, and one row per level both sides measured,
// named "rate=100/s" (see LevelName).
//
// When each side has one variant, those two are compared whatever their
// names. Otherwise every variant both sides have is compared with its
// namesake, and the rows are named "variant/rate=100/s". Variants and
// levels only one side has, runs left out (flagged or unfinished, unless
// opt.IncludeFlagged; unreadable, whatever it says) and quantiles n/a in a run are listed in the
// comparison's notes.
//
// Every error CompareRuns returns is about its input: an unknown
// variant, a side without runs, no variant or level in common.
func CompareRuns(old, new RunSet, opt RunsOptions) (*BenchComparison, error) {
	oldVars, err := old.variants()
	if err != nil {
		return nil, err
	}
	newVars, err := new.variants()
	if err != nil {
		return nil, err
	}
	var notes []string
	var pairs [][2]string
	switch {
	case len(oldVars) == 1 && len(newVars) == 1:
		pairs = [][2]string{{oldVars[0], newVars[0]}}
		if old.Variant == "" && new.Variant == "" && oldVars[0] != newVars[0] {
			notes = append(notes, fmt.Sprintf("variant %s of %s compared with variant %s of %s", oldVars[0], old.Name, newVars[0], new.Name))
		}
	default:
		for _, v := range oldVars {
			if slices.Contains(newVars, v) {
				pairs = append(pairs, [2]string{v, v})
			}
		}
		if len(pairs) == 0 {
			return nil, fmt.Errorf("no variant in common: %s has %s; %s has %s",
				old.Name, strings.Join(oldVars, ", "), new.Name, strings.Join(newVars, ", "))
		}
		notes = append(notes, onlyIn("variant", oldVars, newVars, old.Name)...)
		notes = append(notes, onlyIn("variant", newVars, oldVars, new.Name)...)
	}

	rc := runsComparison{old: old, new: new, opt: opt}
	for _, p := range pairs {
		prefix := ""
		if len(pairs) > 1 {
			prefix = p[0] + "/"
		}
		rc.addPair(p[0], p[1], prefix)
	}
	if len(rc.rows) == 0 {
		return nil, fmt.Errorf("no level in common: %s has %s; %s has %s",
			old.Name, strings.Join(rc.oldOnly, ", "), new.Name, strings.Join(rc.newOnly, ", "))
	}
	notes = append(notes, rc.levelNotes...)
	notes = append(notes, leftOutNote(old.Name, rc.oldLeft, rc.oldTotal), leftOutNote(new.Name, rc.newLeft, rc.newTotal))

	var config []string
	switch {
	case old.Experiment == new.Experiment && old.Experiment != "":
		config = append(config, "experiment: "+old.Experiment)
	case old.Experiment != "" && new.Experiment != "":
		config = append(config, "experiment: "+old.Experiment+" vs "+new.Experiment)
	}
	tables := make([]SampleTable, 0, len(spec.CompareStats))
	for _, name := range spec.CompareStats {
		st := SampleTable{Config: append(slices.Clip(config), "latency: "+name+" (from intended send)"), Unit: unitLatency}
		for _, r := range rc.rows {
			so, naOld := runValues(r.old, name)
			sn, naNew := runValues(r.new, name)
			st.Rows = append(st.Rows, SampleRow{Name: r.name, Old: so, New: sn})
			notes = append(notes, naNote(old.Name, r.name, name, naOld, len(r.old)), naNote(new.Name, r.name, name, naNew, len(r.new)))
		}
		tables = append(tables, st)
	}
	c := CompareSamples(old.Name, new.Name, tables, opt.BenchOptions)
	for _, n := range notes {
		if n != "" && !slices.Contains(c.Notes, n) { // the same input on both sides gives its notes twice
			c.Notes = append(c.Notes, n)
		}
	}
	return c, nil
}

// LevelName names a level as a row of CompareRuns, in the style of a
// sub-benchmark: "rate=100/s", "c=8" or "rate=100/s c=8".
func LevelName(l analysis.Level) string {
	if l.Rate > 0 {
		return "rate=" + l.String()
	}
	return l.String()
}

// variants returns the variants s compares, in the order they first
// appear in its runs.
func (s RunSet) variants() ([]string, error) {
	var all []string
	for _, r := range s.Runs {
		if !slices.Contains(all, r.Variant) {
			all = append(all, r.Variant)
		}
	}
	switch {
	case len(all) == 0:
		return nil, fmt.Errorf("%s: no runs with a result", s.Name)
	case s.Variant == "":
		return all, nil
	case !slices.Contains(all, s.Variant):
		in := ""
		if s.Experiment != "" {
			in = " in experiment " + s.Experiment
		}
		return nil, fmt.Errorf("%s: no variant %q%s (it has %s)", s.Name, s.Variant, in, strings.Join(all, ", "))
	}
	return []string{s.Variant}, nil
}

// runsComparison collects the rows of CompareRuns, pair of variants by
// pair.
type runsComparison struct {
	old, new RunSet
	opt      RunsOptions
	rows     []runsRow

	levelNotes         []string
	oldOnly, newOnly   []string       // levels only one side has, for the error without any row
	oldLeft, newLeft   []analysis.Run // runs left out of the rows
	oldTotal, newTotal int            // runs at the levels compared
}

// runsRow is one row: the runs counted on each side.
type runsRow struct {
	name     string
	old, new []analysis.Run
}

func (rc *runsComparison) addPair(oldVariant, newVariant, prefix string) {
	oldLevels := byLevel(rc.old.Runs, oldVariant)
	newLevels := byLevel(rc.new.Runs, newVariant)
	var onlyOld, onlyNew []string
	for _, l := range sortedLevels(oldLevels) {
		if _, ok := newLevels[l]; !ok {
			onlyOld = append(onlyOld, LevelName(l))
		}
	}
	for _, l := range sortedLevels(newLevels) {
		olds, ok := oldLevels[l]
		if !ok {
			onlyNew = append(onlyNew, LevelName(l))
			continue
		}
		r := runsRow{name: prefix + LevelName(l)}
		r.old, rc.oldLeft = rc.count(olds, rc.oldLeft)
		r.new, rc.newLeft = rc.count(newLevels[l], rc.newLeft)
		rc.oldTotal += len(olds)
		rc.newTotal += len(newLevels[l])
		rc.rows = append(rc.rows, r)
	}
	rc.oldOnly, rc.newOnly = append(rc.oldOnly, onlyOld...), append(rc.newOnly, onlyNew...)
	label := strings.TrimSuffix(prefix, "/")
	if label != "" {
		label += ": "
	}
	for _, o := range []struct {
		levels []string
		side   string
	}{{onlyOld, rc.old.Name}, {onlyNew, rc.new.Name}} {
		if len(o.levels) > 0 {
			rc.levelNotes = append(rc.levelNotes, fmt.Sprintf("%s%s only in %s", label, strings.Join(o.levels, ", "), o.side))
		}
	}
}

// count returns the runs that count and appends the others to left.
func (rc *runsComparison) count(runs, left []analysis.Run) (counted, _ []analysis.Run) {
	for _, r := range runs {
		if r.Counts(analysis.Options{IncludeFlagged: rc.opt.IncludeFlagged}) {
			counted = append(counted, r)
		} else {
			left = append(left, r)
		}
	}
	return counted, left
}

// byLevel groups the runs of variant by level.
func byLevel(runs []analysis.Run, variant string) map[analysis.Level][]analysis.Run {
	out := map[analysis.Level][]analysis.Run{}
	for _, r := range runs {
		if r.Variant == variant {
			out[r.Level] = append(out[r.Level], r)
		}
	}
	return out
}

func sortedLevels(m map[analysis.Level][]analysis.Run) []analysis.Level {
	out := make([]analysis.Level, 0, len(m))
	for l := range m {
		out = append(out, l)
	}
	slices.SortFunc(out, analysis.Level.Compare)
	return out
}

// runValues returns the latency quantile stat of each run, in seconds,
// and in how many runs it is n/a. It returns no values when any run lacks
// one: every quantile of a row stands on the same runs, as a median over
// the others could read above the row's next quantile (see Cell).
func runValues(runs []analysis.Run, stat string) (values []float64, na int) {
	for _, r := range runs {
		v, ok := analysis.Get(r.Latency, stat)
		if !ok || !v.OK {
			na++
			continue
		}
		values = append(values, v.Latency.Seconds())
	}
	if na > 0 {
		return nil, na
	}
	return values, na
}

// onlyIn notes the names of have that other lacks.
func onlyIn(what string, have, other []string, side string) []string {
	var only []string
	for _, v := range have {
		if !slices.Contains(other, v) {
			only = append(only, v)
		}
	}
	switch len(only) {
	case 0:
		return nil
	case 1:
		return []string{fmt.Sprintf("%s %s only in %s", what, only[0], side)}
	}
	return []string{fmt.Sprintf("%ss %s only in %s", what, strings.Join(only, ", "), side)}
}

// leftOutNote says how many of total runs of side were left out and
// why, by flag; "" when none were.
func leftOutNote(side string, left []analysis.Run, total int) string {
	if len(left) == 0 {
		return ""
	}
	var reasons []string
	counts := map[string]int{}
	why := "flagged or unfinished"
	for _, r := range left {
		names := []string{}
		if len(r.Defects) > 0 {
			names = append(names, "unreadable")
			why = "flagged, unfinished or with stored data missing or inconsistent"
		}
		if r.Status != store.Done {
			names = append(names, string(r.Status))
		}
		for _, f := range r.Flags {
			if analysis.LeavesOut(f.Name) && !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
		for _, n := range names {
			if counts[n] == 0 {
				reasons = append(reasons, n)
			}
			counts[n]++
		}
	}
	for i, n := range reasons {
		reasons[i] = fmt.Sprintf("%s×%d", n, counts[n])
	}
	return fmt.Sprintf("%s: %d of %d runs left out, %s (%s)", side, len(left), total, why, strings.Join(reasons, ", "))
}

// naNote says in how many of the runs of row on side the quantile stat
// was n/a, which leaves the row without it; "" when in none.
func naNote(side, row, stat string, na, runs int) string {
	if na == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s: %s n/a in %d of %d runs (too few samples), so none for the row", side, row, stat, na, runs)
}
