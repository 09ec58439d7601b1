package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// A Runner runs a Spec's plan into a results database: it sets variants
// up, warms them, loads them with probes alongside, checks each run's
// validity and commits it whole, and resumes where an earlier run of the
// same spec stopped.
type Runner struct {
	Spec       *spec.Spec
	DB         *store.DB
	Binary     string    // the latlab executable graph nodes run; "" means this one
	New        bool      // start a new experiment even though the file's latest one differs
	Seed       *int64    // the order's seed: a new experiment's, a resumed one's; it must agree with the spec's seed:. nil: the spec's, else drawn
	Version    string    // latlab's version, for provenance
	Samples    *int64    // raw requests kept per run, 0 none; nil means load.DefaultSamples
	Log        io.Writer // one line per problem, and per finished trial unless Trials is set; nil discards
	Trials     io.Writer // one line per finished trial, as it finishes; nil means Log
	NodeOutput io.Writer // graph nodes' and setup commands' output; nil discards

	// Progress shows the trial under way, live; nil shows none.
	Progress ProgressLine

	// Kubernetes says how to reach the cluster of a spec that runs
	// variants or load there; the zero value finds it as kubectl does.
	Kubernetes cluster.Options
	// Keep leaves what was deployed to the cluster there at the end.
	Keep bool

	traces     *probe.TraceReceiver
	tracesURL  string                         // the trace receiver's OTLP/HTTP base URL
	tracesGRPC string                         // and its OTLP/gRPC address
	targetCPUs []int                          // where variants' processes start; nil means latlab's own
	siblings   map[spec.Cell][]*record.Result // earlier runs of a variant and level in this process
	total      int                            // trials in the plan
	commit     retry                          // for a failed commit; zero means defaultRetry
	lines      sync.Mutex                     // the live status line and trial lines

	kube        *cluster.Cluster // the spec's cluster, once connected
	kubeCreated []string         // the namespaces latlab created there
	kubeShared  *cluster.Set     // what the experiment's trials share there
}

// Outcome is what Run did.
type Outcome struct {
	Experiment  store.Experiment
	Resumed     bool   // the experiment was there already
	Raised      *Raise // the spec raised the runs of the experiment resumed; nil when it did not
	Trials      int    // in the plan
	Skipped     int    // done before this Run
	Done        int    // completed now
	Failed      int
	Flagged     int // completed with at least one validity flag
	NotStored   int // measured, but kept in a side file: see NotStoredError
	Interrupted bool
	// Stops say, under runs: auto, why each variant's cell stopped
	// repeating, once every one has; nil before, and for a number of
	// runs.
	Stops []analysis.Stop
}

// Run runs every trial of the plan not yet done. When ctx ends it stops the
// trial under way, stores it marked interrupted, tears the variants down
// and returns with Outcome.Interrupted set.
//
// A trial counts, and its line says done, once its run is committed. A
// commit that fails is tried again, and then the run is kept in a side
// file beside the database; the plan stops there and Run returns a
// *NotStoredError naming the side files. Run first imports the side files
// an earlier Run left.
func (r *Runner) Run(ctx context.Context) (Outcome, error) {
	var out Outcome
	if err := r.pin(); err != nil {
		return out, err
	}
	if err := r.importPending(ctx); err != nil {
		return out, err
	}
	exp, raise, resumed, err := r.experiment(ctx)
	if err != nil {
		return out, err
	}
	out.Experiment, out.Resumed, out.Raised = exp, resumed, raise
	trials, todo, err := r.pending(ctx, exp)
	if err != nil {
		return out, err
	}
	out.Trials, r.total = len(trials), len(trials)
	out.Skipped = len(trials) - len(todo)
	var auto *autoPlan
	if r.Spec.Auto != nil {
		auto = newAutoPlan(r.Spec, trials)
		if todo, err = r.autoBatch(ctx, auto, exp.ID); err != nil {
			return out, err
		}
	}
	if len(todo) == 0 {
		return out, r.storeStops(ctx, &out, auto)
	}
	if err := r.connect(ctx); err != nil {
		return out, err
	}
	defer r.disconnect(ctx)
	if err := r.receiveTraces(ctx); err != nil {
		return out, err
	}
	r.siblings = map[spec.Cell][]*record.Result{}
	var tally Outcome // of the writer's goroutine until it is closed
	w := r.startWriter(ctx, exp, &tally)
	defer func() { _ = w.close() }() // on the early returns; the normal path checks it
	lives := map[string]*live{}
	defer func() {
		for _, l := range lives {
			r.tearDown(l)
		}
	}()
	for ran := 0; len(todo) > 0; {
		if out.Interrupted = r.runBatch(ctx, w, lives, todo, ran); out.Interrupted || w.failed() || auto == nil {
			break
		}
		ran += len(todo)
		// The next repetition is decided on every run of this one: wait
		// for the last to be stored.
		w.flush()
		if todo, err = r.autoBatch(ctx, auto, exp.ID); err != nil {
			break
		}
	}
	if cerr := w.close(); cerr != nil {
		err = cerr
	}
	out.Done, out.Flagged, out.Failed, out.NotStored = tally.Done, tally.Flagged, tally.Failed, tally.NotStored
	if ctx.Err() != nil {
		out.Interrupted = true
	}
	if err != nil || out.Interrupted {
		return out, err
	}
	return out, r.storeStops(ctx, &out, auto)
}

// receiveTraces starts the trace receiver the spec's traces probe needs,
// unless a load pod receives them itself.
func (r *Runner) receiveTraces(ctx context.Context) error {
	if !r.Spec.Probes.Traces || r.Spec.LoadPod != nil {
		return nil
	}
	r.traces = probe.NewTraceReceiver()
	var err error
	if r.tracesURL, err = r.traces.Listen(ctx, ""); err != nil {
		return fmt.Errorf("starting the trace receiver: %w", err)
	}
	if r.tracesGRPC, err = r.traces.ListenGRPC(ctx, ""); err != nil {
		return fmt.Errorf("starting the trace receiver: %w", err)
	}
	return nil
}

// startWriter starts the writer that stores each finished trial of exp,
// counting in tally what it stored, done, flagged and failed, and logging
// each trial's line.
func (r *Runner) startWriter(ctx context.Context, exp store.Experiment, tally *Outcome) *writer {
	return (&writer{ctx: ctx, db: r.DB, exp: exp, retry: r.commit, logf: r.logf, stored: func(f *finished, side string, err error) {
		switch {
		case err != nil:
			tally.NotStored++
		case f.info.Status == store.Done:
			tally.Done++
			if len(f.info.Flags) > 0 {
				tally.Flagged++
			}
		case f.info.Status == store.Failed:
			tally.Failed++
		}
		r.logTrial(f, side, err)
	}}).start()
}

// runBatch runs the trials of batch, ran trials of this Run done
// before it, handing each to w, and reports whether the caller's context
// interrupted one. It stops early when w cannot store a run.
func (r *Runner) runBatch(ctx context.Context, w *writer, lives map[string]*live, batch []spec.Trial, ran int) (interrupted bool) {
	for i, t := range batch {
		if ctx.Err() != nil {
			return true
		}
		if w.failed() {
			return false // the database cannot be written: no more load for nothing
		}
		l, err := r.ready(ctx, lives, t)
		var run *finished
		if err != nil {
			run = &finished{info: r.info(t, time.Now(), store.Failed), err: err}
			run.info.Error = err.Error()
		} else {
			run = r.trial(ctx, l, t, ran+i, ran+len(batch))
		}
		if r.Spec.Restart == spec.PerRun && l != nil {
			r.tearDown(l)
			delete(lives, t.Variant)
		}
		run.trial = t
		w.write(run)
		if run.info.Status == store.Interrupted {
			return true
		}
	}
	return false
}

// importPending takes in the runs an earlier Run kept in side files, so
// that the plan counts them done.
func (r *Runner) importPending(ctx context.Context) error {
	imported, err := r.DB.ImportPending(ctx)
	for _, im := range imported {
		r.logf("imported %d runs from %s (%d left out: the database has them done)", len(im.Runs), im.File, len(im.Skipped))
	}
	return err
}

// ready returns t's variant set up, setting it up (again) as the restart
// policy says.
func (r *Runner) ready(ctx context.Context, lives map[string]*live, t spec.Trial) (*live, error) {
	l := lives[t.Variant]
	if l != nil && r.Spec.Restart == spec.PerRate && l.level != t.Level {
		r.tearDown(l)
		delete(lives, t.Variant)
		l = nil
	}
	if l != nil {
		return l, nil
	}
	l, err := r.setUp(ctx, r.Spec.Variant(t.Variant), t)
	if err != nil {
		return nil, err
	}
	lives[t.Variant] = l
	return l, nil
}

// experiment finds the experiment to resume or creates one. A spec that
// raises the runs of the one it resumes is stored as its spec first.
func (r *Runner) experiment(ctx context.Context) (store.Experiment, *Raise, bool, error) {
	exp, raise, err := r.resumable(ctx)
	switch {
	case err != nil:
		return store.Experiment{}, nil, false, err
	case exp != nil && raise != nil:
		up, err := r.applyRaise(ctx, *exp, raise)
		return up, raise, true, err
	case exp != nil:
		return *exp, nil, true, nil
	}
	seed, _, err := r.seed()
	if err != nil {
		return store.Experiment{}, nil, false, err
	}
	canon := r.Spec.Canonical()
	prov := CollectProvenance(ctx, r.Spec.Dir, r.Version, seed)
	if prov.Extra == nil {
		prov.Extra = map[string]string{}
	}
	prov.Extra["canonical"] = canon
	prov.Extra[planKey] = strconv.Itoa(spec.PlanVersion)
	if r.Spec.File != "" {
		// For the report's advice: the command that runs the study again.
		prov.Extra[SpecPathKey] = r.Spec.File
	}
	prov.Commands = map[string][]string{}
	for _, v := range r.Spec.Variants {
		switch {
		case v.Graph != "":
			prov.Commands[v.Name] = []string{"graph up " + v.Graph}
		default:
			for _, c := range []string{v.Start, v.Setup, v.Configure, v.Teardown} {
				if c != "" {
					prov.Commands[v.Name] = append(prov.Commands[v.Name], c)
				}
			}
		}
	}
	created, err := r.DB.CreateExperiment(ctx, store.Experiment{Name: r.Spec.Name, Spec: r.specText(canon), SpecHash: r.Spec.Hash(), Provenance: prov})
	return created, nil, false, err
}

// ChangedError refuses to run a spec into a file whose latest experiment of
// the same name came from a different spec. Only more runs go on with an
// experiment (see Raise).
type ChangedError struct {
	ID   int64
	Diff string
	// Why says why the change is refused when it is one of the runs:
	// field alone, a lowering; "" for any other change.
	Why string
}

func (e *ChangedError) Error() string {
	why := "ran a different spec; run with --new to start another experiment in the same file"
	if e.Why != "" {
		why = "ran this spec with other runs: " + e.Why
	}
	return fmt.Sprintf("the file's experiment %d of this name %s. What changed:\n%s", e.ID, why, e.Diff)
}

var _ error = (*ChangedError)(nil)

func storeTrial(t spec.Trial) store.Trial {
	return store.Trial{Variant: t.Variant, Level: t.Level, Rep: t.Rep}
}

func (r *Runner) info(t spec.Trial, start time.Time, status store.Status) store.RunInfo {
	return store.RunInfo{Trial: storeTrial(t), Position: t.Position, Status: status, StartedAt: start, EndedAt: time.Now()}
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprint(r.Log, textsafe.Layout(fmt.Sprintf(format, args...))+"\n")
	}
}

// errInterrupted marks a trial stopped by the caller's context.
var errInterrupted = errors.New("interrupted")
