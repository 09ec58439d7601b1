package experiment

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// autoPlan runs a plan under runs: auto (see AutoRuns): its first Min
// repetitions whole, then one repetition at a time, each running the
// trials of that repetition whose cells are still open, in the plan's
// order. Before repetition k it judges the runs of the repetitions before
// k alone and closes each variant's cell whose overheads are precise;
// the baseline's cell at a level stays open while a variant's there does,
// so that each of a variant's repetitions has its baseline's beside it to
// pair with. A cell closed stays closed.
//
// Every decision is a function of the stored runs: a resumed experiment
// replays them from the first, running only what is not yet done, and
// so goes on where it stopped, in the same order.
type autoPlan struct {
	a        *spec.AutoRuns
	baseline string
	plan     []spec.Trial       // the whole plan, to a.Max repetitions
	variants []spec.Cell        // the cells judged: every variant but the baseline, at each level, as a report orders them
	based    map[spec.Cell]bool // the baseline's cells
	stops    map[spec.Cell]*analysis.Stop
	next     int  // the repetition to decide next
	ended    bool // every cell has stopped
}

// newAutoPlan returns the plan of s under runs: auto, its trials plan.
func newAutoPlan(s *spec.Spec, plan []spec.Trial) *autoPlan {
	p := &autoPlan{a: s.Auto, baseline: s.Baseline, plan: plan, based: map[spec.Cell]bool{}, stops: map[spec.Cell]*analysis.Stop{}, next: 1}
	var base []spec.Cell
	for _, t := range plan {
		c := t.Cell()
		switch {
		case t.Rep != 1:
		case t.Variant == s.Baseline:
			p.based[c] = true
			base = append(base, c)
		default:
			p.variants = append(p.variants, c)
		}
	}
	if len(p.variants) == 0 {
		// The baseline alone has nothing to compare with: its cells
		// stop at Min, and say so.
		p.variants = base
	}
	// Stops come in the order of a report's rows.
	slices.SortStableFunc(p.variants, func(a, b spec.Cell) int {
		return cmp.Or(cmp.Compare(slices.IndexFunc(s.Variants, func(v spec.Variant) bool { return v.Name == a.Variant }),
			slices.IndexFunc(s.Variants, func(v spec.Variant) bool { return v.Name == b.Variant })), a.Level.Compare(b.Level))
	})
	return p
}

// autoData is what an autoPlan judges by: the experiment's stored runs.
type autoData struct {
	runs []analysis.Run       // with a result, for the intervals
	all  []analysis.Run       // every stored run, results or not, for the counts
	took map[int]trialTimes   // the time the trials of each repetition took
	done map[store.Trial]bool // the trials that are done
}

// trialTimes adds up the time of some trials.
type trialTimes struct {
	n   int
	sum time.Duration
}

// loadAutoData reads what an autoPlan judges by from db.
func loadAutoData(ctx context.Context, db *store.DB, expID int64) (*autoData, error) {
	exp, err := analysis.Load(ctx, db, expID)
	if err != nil {
		return nil, err
	}
	stored, err := db.Runs(ctx, expID)
	if err != nil {
		return nil, err
	}
	d := &autoData{runs: exp.Runs, all: slices.Concat(exp.Runs, exp.Unmeasured), took: map[int]trialTimes{}, done: map[store.Trial]bool{}}
	for _, r := range stored {
		tt := d.took[r.Rep]
		tt.n++
		tt.sum += max(r.EndedAt.Sub(r.StartedAt), 0)
		d.took[r.Rep] = tt
		if r.Status == store.Done {
			d.done[r.Trial] = true
		}
	}
	return d, nil
}

// batch returns the trials to run next, none once every cell has
// stopped: the first time, those of the first Min repetitions not yet
// done; then those of the next repetition that has any left to run.
func (p *autoPlan) batch(d *autoData) []spec.Trial {
	for !p.ended {
		k := p.next
		if k == 1 {
			p.next = p.a.Min + 1
			if todo := p.todo(d, func(t spec.Trial) bool { return t.Rep <= p.a.Min }); len(todo) > 0 {
				return todo
			}
			continue
		}
		if k > p.a.Max {
			p.end(d, analysis.StopMax, k)
			return nil
		}
		open := p.decide(k, d)
		p.next++
		if todo := p.todo(d, func(t spec.Trial) bool { return t.Rep == k && open[t.Cell()] }); len(todo) > 0 {
			return todo
		}
	}
	return nil
}

// todo returns the trials of the plan that in selects and that are not
// done, in plan order.
func (p *autoPlan) todo(d *autoData, in func(spec.Trial) bool) []spec.Trial {
	var out []spec.Trial
	for _, t := range p.plan {
		if in(t) && !d.done[storeTrial(t)] {
			out = append(out, t)
		}
	}
	return out
}

// decide closes the cells repetition k need not run, judging the runs of
// the repetitions before k, and returns the cells k runs: the variants'
// still open and the baseline's at their levels.
func (p *autoPlan) decide(k int, d *autoData) map[spec.Cell]bool {
	before := func(r analysis.Run) bool { return r.Rep < k }
	widths := analysis.Widths(filter(d.runs, before), p.baseline, goal(p.a), p.a.Quantiles)
	var open []spec.Cell
	for _, c := range p.variants {
		if p.stops[c] != nil {
			continue
		}
		ws := widths[analysis.CellKey{Variant: c.Variant, Level: c.Level}]
		if why := p.judge(c, ws); why != "" {
			p.stop(c, why, ws, d, k)
			continue
		}
		open = append(open, c)
	}
	if len(open) > 0 && p.overBudget(k, len(open), d) {
		for _, c := range open {
			p.stop(c, analysis.StopBudget, widths[analysis.CellKey{Variant: c.Variant, Level: c.Level}], d, k)
		}
		open = nil
	}
	if len(open) == 0 {
		p.ended = true
		return nil
	}
	runs := map[spec.Cell]bool{}
	for _, c := range open {
		runs[c], runs[spec.Cell{Variant: p.baseline, Level: c.Level}] = true, true
	}
	return runs
}

// overBudget reports whether repetition k, of open variants' cells and
// their baselines', would pass the budget: the time the trials of the
// repetitions before k took, with k's trials at their mean.
func (p *autoPlan) overBudget(k, open int, d *autoData) bool {
	if p.a.Budget <= 0 {
		return false
	}
	var spent trialTimes
	for rep, tt := range d.took {
		if rep < k {
			spent.n, spent.sum = spent.n+tt.n, spent.sum+tt.sum
		}
	}
	if spent.n == 0 {
		return false
	}
	levels := map[spec.Cell]bool{}
	for _, c := range p.variants {
		if p.stops[c] == nil {
			levels[spec.Cell{Variant: p.baseline, Level: c.Level}] = true
		}
	}
	next := time.Duration(open+len(levels)) * (spent.sum / time.Duration(spent.n))
	return spent.sum+next > p.a.Budget
}

// end stops every cell still open, judging all the runs before
// repetition k: precise, or for why.
func (p *autoPlan) end(d *autoData, why analysis.StopReason, k int) {
	widths := analysis.Widths(filter(d.runs, func(r analysis.Run) bool { return r.Rep < k }), p.baseline, goal(p.a), p.a.Quantiles)
	for _, c := range p.variants {
		if p.stops[c] != nil {
			continue
		}
		ws := widths[analysis.CellKey{Variant: c.Variant, Level: c.Level}]
		p.stop(c, cmp.Or(p.judge(c, ws), why), ws, d, k)
	}
	p.ended = true
}

// judge returns why cell c, whose overheads have the widths ws, stops:
// precise, or unjudged without a baseline to compare with; "" while it
// is open. It reads the widths alone (see analysis.Precision.Judge).
func (p *autoPlan) judge(c spec.Cell, ws []analysis.Width) analysis.StopReason {
	switch {
	case c.Variant == p.baseline || !p.based[spec.Cell{Variant: p.baseline, Level: c.Level}]:
		return analysis.StopUnjudged
	case analysis.Precise(ws):
		return analysis.StopPrecise
	}
	return ""
}

// stop stops cell c for why, with its overheads' widths ws, after the
// repetitions before k.
func (p *autoPlan) stop(c spec.Cell, why analysis.StopReason, ws []analysis.Width, d *autoData, k int) {
	s := &analysis.Stop{Variant: c.Variant, Rate: c.Level.Rate, Concurrency: c.Level.Concurrency, Reason: why}
	if why != analysis.StopUnjudged {
		s.Widths = ws
	}
	s.Runs = k - 1
	for _, r := range d.all {
		if r.Variant == c.Variant && r.Level == c.Level && r.Rep < k && (len(r.Defects) > 0 || !r.Valid()) {
			s.LeftOut++
		}
	}
	p.stops[c] = s
}

// Stops returns why each variant's cell stopped, variants in the spec's
// order, levels rising; nil until every cell has.
func (p *autoPlan) Stops() []analysis.Stop {
	if !p.ended {
		return nil
	}
	out := make([]analysis.Stop, 0, len(p.variants))
	for _, c := range p.variants {
		if s := p.stops[c]; s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// filter returns the runs of rs that keep selects.
func filter(rs []analysis.Run, keep func(analysis.Run) bool) []analysis.Run {
	var out []analysis.Run
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// autoBatch reads the stored runs of experiment expID and returns the
// trials p runs next; none once every cell has stopped.
func (r *Runner) autoBatch(ctx context.Context, p *autoPlan, expID int64) ([]spec.Trial, error) {
	d, err := loadAutoData(ctx, r.DB, expID)
	if err != nil {
		return nil, fmt.Errorf("runs: auto: reading the runs stored: %w", err)
	}
	return p.batch(d), nil
}

// storeStops sets out.Stops from p, once every cell of it has stopped,
// and keeps them with the experiment, for reports (analysis.StopsKey).
// Without p, a number of runs, it does nothing.
func (r *Runner) storeStops(ctx context.Context, out *Outcome, p *autoPlan) error {
	if p == nil || !p.ended {
		return nil
	}
	out.Stops = p.Stops()
	exp, err := r.DB.Experiment(ctx, out.Experiment.ID)
	if err != nil {
		return err
	}
	extra := make(map[string]string, len(exp.Provenance.Extra)+1)
	for k, v := range exp.Provenance.Extra {
		extra[k] = v
	}
	extra[analysis.StopsKey] = analysis.EncodeStops(out.Stops)
	exp.Provenance.Extra = extra
	if err := r.DB.UpdateExperiment(ctx, exp); err != nil {
		return fmt.Errorf("runs: auto: storing why each cell stopped: %w", err)
	}
	out.Experiment = exp
	return nil
}

// goal returns the precision a asks for, the analysis judges it.
func goal(a *spec.AutoRuns) analysis.Precision {
	return analysis.Precision{Ratio: a.Precision, Width: a.Width.Seconds(), Relative: a.Relative}
}
