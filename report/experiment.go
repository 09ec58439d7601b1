package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// ExperimentOptions choose what an experiment report counts and judges.
// The zero value compares every variant with the spec's baseline, counts
// valid runs only and asks for no SLO.
type ExperimentOptions struct {
	// Baseline is the variant the others are compared with; "" means the
	// spec's baseline, else its first variant, else the first variant run.
	Baseline string
	// SLO is what every variant × level must meet; the zero value asks
	// for nothing.
	SLO analysis.SLO
	// Strict judges the SLO on the point estimate (the median over runs)
	// instead of the 95% CI's lower bound.
	Strict bool
	// IncludeFlagged counts flagged and unfinished runs in aggregates.
	IncludeFlagged bool
	// Unpaired compares every variant with the baseline unpaired, even
	// where their runs pair by repetition: the interval a design without
	// pairs would give, to set beside the paired one.
	Unpaired bool
}

// An Experiment is a stored experiment analysed for latlab report: every
// form of the report (text, JSON, CSV) writes from it.
type Experiment struct {
	Exp            *analysis.Experiment
	Baseline       string
	IncludeFlagged bool
	Levels         []analysis.LevelResult // variant × level, variants in spec order
	Overheads      []analysis.Comparison  // against Baseline, Holm-corrected
	// Verdict is the SLO judged: each variant's knee and the limits
	// broken, in Levels order; the zero value without an SLO.
	Verdict      analysis.SLOVerdict
	Expectations []analysis.Expectation // the spec's expect: against Levels, in Levels order
	Warnings     []string
	// Notes come before everything else: what the runs cannot show and
	// why, such as flagged runs on a busy machine (FlaggedNote) or a
	// design with too few runs for intervals. The caller sets them.
	Notes []string
	Runs  RunCounts
	// Stops say, for an experiment under runs: auto, why each variant ×
	// level stopped repeating; none before every one has, or for a
	// number of runs.
	Stops []analysis.Stop
	// Probes summarise the probes of every counted run per variant ×
	// level; nil until LoadProbes reads them.
	Probes []analysis.ProbeStat
	// Damaged are the rows of the results database the report met that
	// do not decode: each is left out, and named in Warnings.
	Damaged []store.DamagedRow

	shards   []runShards // of the sharded runs; none until LoadShards reads them
	variants []string
	runs     map[int64]analysis.Run
}

// RunCounts count an experiment's stored runs against its plan.
type RunCounts struct {
	Total    int // stored, with or without a result
	Done     int // went to their end
	Flagged  int // carry at least one validity flag
	LeftOut  int // done and flagged, left out of the aggregates (0 with IncludeFlagged)
	Failed   int // failed or interrupted, with or without a result
	NoResult int // failed before measuring anything
	// Planned is the runs of the experiment's plan: variants × levels ×
	// repetitions, as the experiment's Design and stored runs tell.
	Planned int
	// Missing are planned runs without a row: not run yet, or lost.
	Missing int
	// Unreadable are left out of everything: their stored histograms
	// are missing or disagree with their request counts, or they are
	// marked done without a result.
	Unreadable int
}

// String says what is stored of the plan: "36 stored: 36 done, 1 flagged
// (1 left out), 0 failed or interrupted", with the planned runs when some
// are missing and the unreadable ones when there are any.
func (c RunCounts) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d stored", c.Total)
	if c.Planned > c.Total {
		fmt.Fprintf(&b, " of %d planned", c.Planned)
	}
	fmt.Fprintf(&b, ": %d done, %d flagged (%d left out), %d failed or interrupted", c.Done, c.Flagged, c.LeftOut, c.Failed)
	if c.NoResult > 0 {
		fmt.Fprintf(&b, " (%d without a result)", c.NoResult)
	}
	if c.Unreadable > 0 {
		fmt.Fprintf(&b, ", %d unreadable (stored data missing or inconsistent; left out)", c.Unreadable)
	}
	return b.String()
}

// NewExperiment aggregates exp's runs, compares every variant with the
// baseline and judges the SLO. It fails when opt.Baseline names no variant
// of exp.
func NewExperiment(exp *analysis.Experiment, opt ExperimentOptions) (*Experiment, error) {
	r := &Experiment{Exp: exp, IncludeFlagged: opt.IncludeFlagged,
		runs: map[int64]analysis.Run{}}
	r.variants = variantOrder(exp)
	if err := r.pickBaseline(opt.Baseline); err != nil {
		return nil, err
	}
	r.countRuns(opt.IncludeFlagged)
	// A grouped plan ran a repetition's runs far apart: nothing pairs them.
	r.Levels = analysis.Aggregate(exp.Runs, analysis.Options{IncludeFlagged: opt.IncludeFlagged, Unpaired: exp.Design.Grouped || opt.Unpaired})
	slices.SortStableFunc(r.Levels, func(a, b analysis.LevelResult) int {
		return cmp.Compare(slices.Index(r.variants, a.Variant), slices.Index(r.variants, b.Variant))
	})
	r.Overheads = analysis.Overheads(r.Levels, r.Baseline)
	stops, err := analysis.StoredStops(exp.Provenance)
	r.Stops = stops
	// What is missing from the database comes first: it says what the
	// numbers below stand on.
	r.Warnings = r.checkStored()
	for _, d := range exp.Damaged {
		if d.Run == nil && d.Table == "runs" { // else checkStored names it with its run's level
			r.warnDamaged(d)
		} else {
			r.Damaged = append(r.Damaged, d)
		}
	}
	if err != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("why runs: auto stopped each variant and level cannot be read: %v", err))
	}
	r.Warnings = append(r.Warnings, r.analysisWarnings()...)
	r.Verdict = analysis.JudgeSLO(r.Levels, r.variants, opt.SLO, opt.Strict)
	r.Expectations = analysis.Expectations(r.Levels, exp.Design)
	return r, nil
}

// pickBaseline sets the baseline: the one asked for, which must be a
// variant, else the spec's, else the first variant.
func (r *Experiment) pickBaseline(asked string) error {
	r.Baseline = cmp.Or(asked, r.Exp.Design.Baseline)
	if r.Baseline != "" && !slices.Contains(r.variants, r.Baseline) {
		if asked != "" {
			return fmt.Errorf("baseline %q: experiment %d has no such variant (it has %v)", asked, r.Exp.ID, r.variants)
		}
		r.Baseline = ""
	}
	if r.Baseline == "" && len(r.variants) > 0 {
		r.Baseline = r.variants[0]
	}
	return nil
}

// countRuns counts the stored runs by what became of them.
func (r *Experiment) countRuns(includeFlagged bool) {
	exp := r.Exp
	r.Runs.Total = len(exp.Runs) + len(exp.Unmeasured)
	for _, run := range exp.Unmeasured {
		if run.Status == store.Done { // its result is gone: checkStored names it
			r.Runs.Done++
			r.Runs.Unreadable++
			continue
		}
		r.Runs.NoResult++
		r.Runs.Failed++
	}
	for _, run := range exp.Runs {
		r.runs[run.ID] = run
		if run.Status == store.Done {
			r.Runs.Done++
		} else {
			r.Runs.Failed++
		}
		if len(run.Flags) > 0 {
			r.Runs.Flagged++
			if run.Status == store.Done && len(run.Defects) == 0 && !run.Valid() && !includeFlagged {
				r.Runs.LeftOut++
			}
		}
	}
}

// analysisWarnings are the levels' and overheads' warnings, and what the
// runs are too few for.
func (r *Experiment) analysisWarnings() []string {
	var warns []string
	for _, l := range r.Levels {
		warns = append(warns, l.Warnings...)
	}
	for _, c := range r.Overheads {
		warns = append(warns, c.Warnings...)
	}
	if w := analysis.HolmReach(r.Overheads); w != "" {
		warns = append(warns, w)
	} else if w := r.fewRuns(); w != "" {
		warns = append(warns, w)
	}
	if w := analysis.PairingReach(r.Overheads); w != "" {
		warns = append(warns, w)
	}
	if r.Runs.NoResult > 0 {
		warns = append(warns, fmt.Sprintf("%d run(s) failed before measuring anything", r.Runs.NoResult))
	}
	return warns
}

// Variants returns the experiment's variants: in the spec's order where its
// Design lists them, then in the order they were first run.
func (r *Experiment) Variants() []string { return slices.Clone(r.variants) }

// FlagCount is how often one validity flag was raised on the runs of a
// variant at a level, with the reason of the first.
type FlagCount struct {
	Name    string
	Count   int
	RunID   int64  // the first run flagged so
	Example string // its reason
}

// Flags counts the validity flags raised on the runs of variant at level,
// counted or not, in the order first raised.
func (r *Experiment) Flags(variant string, level analysis.Level) []FlagCount {
	var out []FlagCount
	for _, run := range r.Exp.Runs {
		if run.Variant != variant || run.Level != level {
			continue
		}
		for _, f := range run.Flags {
			i := slices.IndexFunc(out, func(c FlagCount) bool { return c.Name == f.Name })
			if i < 0 {
				out = append(out, FlagCount{Name: f.Name, RunID: run.ID, Example: f.Reason})
				i = len(out) - 1
			}
			out[i].Count++
		}
	}
	return out
}

// variantOrder lists exp's variants as Variants describes.
func variantOrder(exp *analysis.Experiment) []string {
	var ran []string
	for _, run := range exp.Runs {
		if !slices.Contains(ran, run.Variant) {
			ran = append(ran, run.Variant)
		}
	}
	var out []string
	for _, v := range exp.Design.Variants {
		if slices.Contains(ran, v.Name) && !slices.Contains(out, v.Name) {
			out = append(out, v.Name)
		}
	}
	for _, v := range ran {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// warnDamaged notes a row that does not decode, left out of the report,
// in Damaged and Warnings, once.
func (r *Experiment) warnDamaged(d store.DamagedRow) {
	if slices.ContainsFunc(r.Damaged, func(o store.DamagedRow) bool { return o.Table == d.Table && o.Row == d.Row }) {
		return
	}
	r.Damaged = append(r.Damaged, d)
	r.Warnings = append(r.Warnings, fmt.Sprintf("%v: left out", d))
}
