package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// SeedError refuses a seed asked for (latlab run --seed) that disagrees
// with the one the spec or the experiment to resume fixes: the order would
// not be the one asked for.
type SeedError struct {
	Flag       int64  // the seed asked for
	Fixed      int64  // the seed that holds
	Spec       string // the spec's file, when its seed: field fixes the seed
	Experiment int64  // the stored experiment resumed, when it fixes the seed
}

func (e *SeedError) Error() string {
	if e.Spec != "" {
		return fmt.Sprintf("--seed %d disagrees with seed: %d in %s: drop one, or make them agree", e.Flag, e.Fixed, e.Spec)
	}
	return fmt.Sprintf("--seed %d disagrees with seed %d of experiment %d, which this spec resumes: drop --seed to resume it, or start another with --new", e.Flag, e.Fixed, e.Experiment)
}

var _ error = (*SeedError)(nil)

// A Preview is what Run would do next, found without changing the
// database: the seed of the order and the trials left to run.
type Preview struct {
	Spec    *spec.Spec
	Seed    int64
	From    string            // where Seed comes from, as the dry run says it
	Resume  *store.Experiment // the experiment Run would resume; nil: a new one
	Plan    int               // trials in the whole plan
	Trials  []spec.Trial      // the plan's trials not yet done, in order; under runs: auto, those it runs next
	Done    int               // trials of the plan done before
	Changed *ChangedError     // the file's experiment of this name ran another spec: Run refuses without New
	Raised  *Raise            // the spec raises the runs of the experiment Run resumes
}

// Preview says what Run would do, reading r.DB (nil: no database yet)
// without writing to it. A new experiment's seed is r.Seed, the spec's
// seed: or, with neither, one drawn here: run with Seed set to it for
// exactly the order the Preview shows.
func (r *Runner) Preview(ctx context.Context) (*Preview, error) {
	p := &Preview{Spec: r.Spec}
	if r.DB != nil {
		exp, raise, err := r.resumable(ctx)
		if errors.As(err, &p.Changed) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		p.Resume, p.Raised = exp, raise
	}
	if p.Resume != nil {
		p.Seed = p.Resume.Provenance.Seed
		p.From = fmt.Sprintf("stored with experiment %d, which latlab run resumes", p.Resume.ID)
		plan, todo, err := r.pending(ctx, *p.Resume)
		if err != nil {
			return nil, err
		}
		p.Done = len(plan) - len(todo)
		if r.Spec.Auto != nil {
			// Under runs: auto the next trials are those the stored runs
			// leave open.
			if todo, err = r.autoBatch(ctx, newAutoPlan(r.Spec, plan), p.Resume.ID); err != nil {
				return nil, err
			}
		}
		p.Plan, p.Trials = len(plan), todo
		return p, nil
	}
	seed, from, err := r.seed()
	if err != nil {
		return nil, err
	}
	p.Seed, p.From = seed, from
	p.Trials = r.Spec.Plan(seed)
	p.Plan = len(p.Trials)
	if a := r.Spec.Auto; a != nil {
		p.Trials = slices.DeleteFunc(p.Trials, func(t spec.Trial) bool { return t.Rep > a.Min })
	}
	return p, nil
}

// Write writes the preview as latlab run --dry-run shows it: the plan
// (what is left of it when resuming), its time and where its seed comes from.
func (p *Preview) Write(w io.Writer) error {
	if err := p.Spec.WritePlan(w, p.Trials); err != nil {
		return err
	}
	ew := textsafe.NewSticky(textsafe.NewWriter(w))
	fmt.Fprintf(ew, "seed:     %d (%s)\n", p.Seed, p.From)
	a := p.Spec.Auto
	switch {
	case p.Resume != nil && a != nil && len(p.Trials) == 0:
		fmt.Fprintf(ew, "resume:   experiment %d: %d of at most %s done, and runs: auto has stopped every cell: none left to run\n",
			p.Resume.ID, p.Done, units.Count(p.Plan, "trial"))
	case p.Resume != nil && a != nil:
		fmt.Fprintf(ew, "resume:   experiment %d: %d of at most %s done, the %d above next\n", p.Resume.ID, p.Done, units.Count(p.Plan, "trial"), len(p.Trials))
	case p.Resume != nil && len(p.Trials) == 0:
		fmt.Fprintf(ew, "resume:   experiment %d: all %s done, none left to run\n", p.Resume.ID, units.Count(p.Plan, "trial"))
	case p.Resume != nil:
		fmt.Fprintf(ew, "resume:   experiment %d: %d of %s done, the %d left above\n", p.Resume.ID, p.Done, units.Count(p.Plan, "trial"), len(p.Trials))
	}
	if a != nil && len(p.Trials) > 0 {
		full := p.Spec.Plan(p.Seed)
		fmt.Fprintf(ew, "runs:     auto: %s, then one repetition at a time of each variant and level whose overheads at %s are wider than %s, "+
			"its baseline's beside it, up to %d repetitions (%s in all at most, about %s)%s\n",
			units.Count(len(p.Trials), "trial"), strings.Join(a.Quantiles, " and "), a.GoalText(), a.Max, units.Count(p.Plan, "trial"),
			units.Round(p.Spec.Totals(full).Total(len(full))), a.BudgetText())
	}
	if p.Raised != nil {
		fmt.Fprintf(ew, "raised:   %s: the experiment goes on, its runs kept and not run again\n", p.Raised)
	}
	if p.Changed != nil {
		fmt.Fprintf(ew, "refused:  without --new, latlab run refuses this spec: %v\n", p.Changed)
	}
	return ew.Err()
}

// seed picks a new experiment's seed: r.Seed or the spec's seed:, which
// must agree when both are set, else one drawn at random. from says which,
// and how to get the drawn one again.
func (r *Runner) seed() (seed int64, from string, err error) {
	switch s := r.Spec.Seed; {
	case s != nil && r.Seed != nil && *s != *r.Seed:
		return 0, "", &SeedError{Flag: *r.Seed, Fixed: *s, Spec: r.Spec.File}
	case s != nil:
		return *s, "the spec's seed:", nil
	case r.Seed != nil:
		return *r.Seed, "--seed", nil
	}
	seed = rand.Int64()
	return seed, fmt.Sprintf("drawn at random: latlab run --seed %d runs exactly this order", seed), nil
}

// checkSeed refuses r.Seed when it is not the seed of exp, the experiment
// to resume.
func (r *Runner) checkSeed(exp *store.Experiment) error {
	if r.Seed != nil && *r.Seed != exp.Provenance.Seed {
		return &SeedError{Flag: *r.Seed, Fixed: exp.Provenance.Seed, Experiment: exp.ID}
	}
	return nil
}

// pending returns exp's plan, drawn again from its stored seed in the
// version of the order it began with, and its trials not yet done, in
// plan order.
func (r *Runner) pending(ctx context.Context, exp store.Experiment) (plan, todo []spec.Trial, err error) {
	version, err := planVersion(exp)
	if err != nil {
		return nil, nil, err
	}
	plan = r.Spec.PlanOf(exp.Provenance.Seed, version)
	done, err := r.DB.CompletedTrials(ctx, exp.ID)
	if err != nil {
		return nil, nil, err
	}
	have := map[store.Trial]bool{}
	for _, t := range done {
		have[t] = true
	}
	for _, t := range plan {
		if !have[storeTrial(t)] {
			todo = append(todo, t)
		}
	}
	return plan, todo, nil
}

// planKey is the provenance entry (Provenance.Extra) that holds the
// version of the order an experiment's plan was drawn in (PlanVersion).
const planKey = "plan_version"

// SpecPathKey is the provenance extra holding the spec's file as latlab
// run was given it, so that a report can name the command that runs the
// study again.
const SpecPathKey = "spec_path"

// planVersion returns the version of the order exp's plan was drawn in:
// its stored one, else 1, the order of every experiment stored before
// versions were.
func planVersion(exp store.Experiment) (int, error) {
	s, ok := exp.Provenance.Extra[planKey]
	if !ok {
		return 1, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > spec.PlanVersion {
		return 0, fmt.Errorf("experiment %d: provenance extra.%s is %q, an order this latlab cannot draw again (it draws versions 1 to %d): "+
			"resume it with the latlab that began it, or start another with --new", exp.ID, planKey, s, spec.PlanVersion)
	}
	return v, nil
}

// resumable returns the experiment Run resumes, nil when it starts a new
// one. The latest experiment of the same name in the file must have the
// same spec, or one that differs only in planning fewer runs (then raise
// says how the spec raises them), and r.Seed (when set) its seed, unless
// r.New says to start another.
func (r *Runner) resumable(ctx context.Context) (exp *store.Experiment, raise *Raise, err error) {
	exps, err := r.DB.Experiments(ctx)
	if err != nil {
		return nil, nil, err
	}
	var latest *store.Experiment
	for i := range exps {
		if exps[i].Name == r.Spec.Name && (latest == nil || exps[i].ID > latest.ID) {
			latest = &exps[i]
		}
	}
	switch {
	case latest == nil || r.New:
		return nil, nil, nil
	case latest.SpecHash != r.Spec.Hash():
		if raise, err = r.raise(latest); err != nil {
			return nil, nil, err
		}
	}
	return latest, raise, r.checkSeed(latest)
}
