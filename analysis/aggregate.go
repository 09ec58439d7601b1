package analysis

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// A Run is one stored run reduced to what the analysis needs.
type Run struct {
	ID int64
	store.Trial
	Position   int // place in the plan's order
	Status     store.Status
	Flags      []store.Flag
	Requests   int64   // completed requests
	Achieved   float64 // achieved sends per second
	ErrorRatio float64 // share of requests that failed or got a non-success code
	// Defects say what of the run's stored data is missing or disagrees
	// with the rest, such as "no latency histogram". A run with any has
	// no percentiles and counts in no aggregate, flagged runs or not.
	Defects []string
	RunPercentiles
}

// FlagTooFewSamples is the validity flag of a run with too few requests
// for a trustworthy percentile. It speaks of percentiles, which already
// read n/a or low-confidence from too few samples; the run itself is
// sound, so this flag alone leaves no run out.
const FlagTooFewSamples = "too_few_samples"

// LeavesOut reports whether a run flagged name is left out of aggregates
// by default: every flag but FlagTooFewSamples.
func LeavesOut(name string) bool { return name != FlagTooFewSamples }

// Valid reports whether r counts in aggregates by default: it went to its
// end and carries no flag that LeavesOut.
func (r Run) Valid() bool {
	if r.Status != store.Done {
		return false
	}
	for _, f := range r.Flags {
		if LeavesOut(f.Name) {
			return false
		}
	}
	return true
}

// Counts reports whether r counts in aggregates under opt: its stored
// data is whole, and it is valid or opt.IncludeFlagged.
func (r Run) Counts(opt Options) bool {
	return len(r.Defects) == 0 && (r.Valid() || opt.IncludeFlagged)
}

// A Level is the load of a trial: a rate in open loop, a concurrency in
// closed loop, or both when open loop caps requests in flight.
type Level = record.Level

// Options choose which runs an aggregate counts, and whether overheads
// may pair them. The zero value counts valid runs only and pairs them
// where their repetitions match.
type Options struct {
	IncludeFlagged bool // count flagged and unfinished runs too
	// Unpaired leaves the repetitions out of the cells (Cell.Reps), so
	// that Overheads compares every variant unpaired: for plans that did
	// not run a repetition's trials side by side (order: grouped).
	Unpaired bool
}

// A Cell aggregates one quantile over the runs of a variant at a level.
// Values are in seconds, like record.Summary. Every cell of a
// LevelResult stands on the same runs, the ones counted: a quantile n/a
// in any of them is n/a in the cell, never a median over the others,
// which could read above the row's max. Each run's quantiles are ordered
// (p50 ≤ p90 ≤ … ≤ max), and so are their medians over one set of runs.
type Cell struct {
	spec.Stat
	// Values are the counted runs' values, in plan order; none when the
	// quantile is n/a in any of them (NA says in how many).
	Values []float64
	// Reps are the repetitions of Values' runs, one each; nil under
	// Options.Unpaired. Overheads pairs runs of one repetition by them.
	Reps []int
	// Median is the median of Values (NaN without any), Lo and Hi its
	// distribution-free 95% interval (see MedianCI); CIOK is false when
	// there are too few runs for one (fewer than 6), and the interval is
	// then n/a.
	Median, Lo, Hi float64
	CIOK           bool
	Runs           int // runs counted, with a value or not
	NA             int // counted runs whose quantile is n/a
	LowConfidence  int // counted runs whose quantile is low-confidence
}

// A LevelResult aggregates the runs of one variant at one level.
type LevelResult struct {
	Variant string
	Level
	RunIDs   []int64 // runs counted, in plan order
	Excluded int     // runs left out: flagged or not done
	// Unreadable are the runs left out whatever the options because
	// their stored data is missing or inconsistent (see Run.Defects).
	Unreadable []int64
	// Planned is how many runs the experiment's plan holds at this level;
	// 0 when not known. Aggregate leaves it to the caller, who knows the plan.
	Planned    int
	ErrorRatio float64 // median error ratio of the runs counted
	Achieved   float64 // median achieved sends per second of the runs counted
	Latency    []Cell  // in spec.Stats order
	Service    []Cell  // in spec.Stats order
	Warnings   []string

	// ErrorRatios are the error ratios of the runs counted, in plan order.
	ErrorRatios []float64
}

// Cell returns the latency cell of the Stat called name.
func (l LevelResult) Cell(name string) (Cell, bool) {
	for _, c := range l.Latency {
		if c.Name == name {
			return c, true
		}
	}
	return Cell{}, false
}

// Aggregate groups runs by variant and level and aggregates each group:
// for every Stat the median of the per-run values with its 95% CI.
// Flagged runs (and runs that did not finish) are left out and counted in
// Excluded unless opt.IncludeFlagged; runs with Defects are left out and
// listed in Unreadable. Groups come in the order their
// variant first appears in runs, then by increasing level.
func Aggregate(runs []Run, opt Options) []LevelResult {
	type key struct {
		variant string
		level   Level
	}
	var order []string
	groups := map[key][]Run{}
	for _, r := range runs {
		k := key{r.Variant, r.Level}
		if !slices.Contains(order, r.Variant) {
			order = append(order, r.Variant)
		}
		groups[k] = append(groups[k], r)
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(slices.Index(order, a.variant), slices.Index(order, b.variant)),
			a.level.Compare(b.level))
	})
	out := make([]LevelResult, 0, len(keys))
	for _, k := range keys {
		out = append(out, aggregate(k.variant, k.level, groups[k], opt))
	}
	return out
}

func aggregate(variant string, level Level, runs []Run, opt Options) LevelResult {
	lr := LevelResult{Variant: variant, Level: level}
	var counted []Run
	for _, r := range runs {
		switch {
		case len(r.Defects) > 0:
			lr.Unreadable = append(lr.Unreadable, r.ID)
		case !r.Counts(opt):
			lr.Excluded++
		default:
			counted = append(counted, r)
			lr.RunIDs = append(lr.RunIDs, r.ID)
		}
	}
	var errs, rates []float64
	for _, r := range counted {
		errs, rates = append(errs, r.ErrorRatio), append(rates, r.Achieved)
	}
	lr.ErrorRatios, lr.ErrorRatio, lr.Achieved = errs, Median(errs), Median(rates)
	lr.Latency = cells(counted, func(r Run) []Value { return r.Latency }, !opt.Unpaired)
	lr.Service = cells(counted, func(r Run) []Value { return r.Service }, !opt.Unpaired)
	name := variant + " " + level.String()
	if lr.Excluded > 0 {
		lr.Warnings = append(lr.Warnings, fmt.Sprintf("%s: %d flagged run(s) left out", name, lr.Excluded))
	}
	if n := len(counted); n < 6 {
		lr.Warnings = append(lr.Warnings, fmt.Sprintf("%s: %d run(s), too few for a 95%% CI of the median (needs 6)", name, n))
	}
	for _, c := range lr.Latency {
		if c.NA > 0 {
			lr.Warnings = append(lr.Warnings, fmt.Sprintf("%s: latency %s n/a in %d of %d run(s): too few samples", name, c.Name, c.NA, len(counted)))
		} else if c.LowConfidence > 0 {
			lr.Warnings = append(lr.Warnings, fmt.Sprintf("%s: latency %s low-confidence in %d run(s)", name, c.Name, c.LowConfidence))
		}
	}
	return lr
}

// cells aggregates each Stat over runs, with their repetitions when reps.
func cells(runs []Run, values func(Run) []Value, reps bool) []Cell {
	out := make([]Cell, len(spec.Stats))
	for i, s := range spec.Stats {
		c := Cell{Stat: s, Runs: len(runs)}
		for _, r := range runs {
			v, ok := Get(values(r), s.Name)
			switch {
			case !ok || !v.OK:
				c.NA++
				continue
			case v.LowConfidence:
				c.LowConfidence++
			}
			c.Values = append(c.Values, v.Latency.Seconds())
			if reps {
				c.Reps = append(c.Reps, r.Rep)
			}
		}
		if c.NA > 0 {
			c.Values, c.Reps = nil, nil
		}
		c.Median, c.Lo, c.Hi, c.CIOK = MedianCI(c.Values)
		out[i] = c
	}
	return out
}
