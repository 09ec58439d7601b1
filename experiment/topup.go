package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// A Raise is a change of an experiment's runs: field alone that raises
// the repetitions it may run: the experiment goes on in the database it
// began in, its plan drawn again from its stored seed and version with the
// new repetitions after the old ones, which are kept and not run again.
// Change says what changed of the field, as Diff does, on one line:
// "runs: 6 → 8", "runs.max: 30 → 40".
type Raise struct {
	Change string
}

func (r Raise) String() string { return r.Change }

// raise returns how r.Spec raises the runs of exp, the latest stored
// experiment of its name, whose hash differs from the spec's: a *Raise
// when the spec differs from the one exp stored in its runs: field alone
// and plans at least as many repetitions, else a *ChangedError saying
// what changed. Lowering the runs is refused: the repetitions already
// stored past the new count would count in no plan.
func (r *Runner) raise(exp *store.Experiment) (*Raise, error) {
	old, now := exp.Provenance.Extra["canonical"], r.Spec.Canonical()
	changed := &ChangedError{ID: exp.ID, Diff: spec.DiffCanonical(old, now)}
	sum := sha256.Sum256([]byte(old))
	// The stored form must be the one its hash was taken of, else it
	// cannot vouch for the spec the experiment ran.
	if old == "" || hex.EncodeToString(sum[:]) != exp.SpecHash || spec.WithoutRuns(old) != spec.WithoutRuns(now) {
		return nil, changed
	}
	if r.Spec.Order == spec.Grouped && spec.RunsCeiling(now) != spec.RunsCeiling(old) {
		// A grouped plan runs each cell's repetitions together: the new
		// ones would belong in the middle of the plan already run.
		changed.Why = "runs can be raised only in an interleaved plan (order: interleaved, the default), where new repetitions come after the old; " +
			"this experiment's plan is order: grouped: run with --new to start another experiment in the same file"
		return nil, changed
	}
	if from, to := spec.RunsCeiling(old), spec.RunsCeiling(now); to < from {
		changed.Why = fmt.Sprintf("runs can only be raised, which goes on with the experiment: it plans %d repetitions a cell and this spec %d; "+
			"give at least %d, or run with --new to start another experiment in the same file", from, to, from)
		return nil, changed
	}
	return &Raise{Change: spec.RunsChange(old, now)}, nil
}

// raisedKey is the provenance entry (Provenance.Extra) that lists, one a
// line, when an experiment's runs: field was raised and how.
const raisedKey = "runs_raised"

// applyRaise stores r.Spec as the spec of exp, which it raises as rs
// says, and returns exp as stored: the next resume compares with it and
// reports read its runs. The runs stored are kept.
func (r *Runner) applyRaise(ctx context.Context, exp store.Experiment, rs *Raise) (store.Experiment, error) {
	canon := r.Spec.Canonical()
	extra := make(map[string]string, len(exp.Provenance.Extra)+1)
	for k, v := range exp.Provenance.Extra {
		extra[k] = v
	}
	extra["canonical"] = canon
	extra[raisedKey] += fmt.Sprintf("%s %s\n", time.Now().UTC().Format(time.RFC3339), rs)
	delete(extra, analysis.StopsKey) // why runs: auto stopped, under the old field
	exp.Provenance.Extra = extra
	exp.Spec, exp.SpecHash = r.specText(canon), r.Spec.Hash()
	return exp, r.DB.UpdateExperiment(ctx, exp)
}

// specText returns the spec's file as written, for the database; its
// canonical form canon when the file cannot be read again.
func (r *Runner) specText(canon string) string {
	raw, err := os.ReadFile(r.Spec.File)
	if err != nil {
		return canon
	}
	return string(raw)
}
