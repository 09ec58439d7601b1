package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// DefaultDir is the folder Run writes into when Options.Dir is empty.
const DefaultDir = "latlab-demo"

// The files Run writes into its folder besides Files.
const (
	DBFile         = "results.db"  // both experiments
	ReportFile     = "report.html" // the demo experiment's report
	RampReportFile = "ramp.html"   // the ramp's report
	NodeLogFile    = "nodes.log"   // what the graph nodes wrote
)

// Options configure Run. The zero value runs the full demo into
// DefaultDir, with this executable as the graph nodes' latlab.
type Options struct {
	Dir      string                  // where the inputs, results.db and reports go; "" means DefaultDir
	Quick    bool                    // the short form, for CI: fewer rates and repetitions, shorter runs
	Binary   string                  // the latlab executable graph nodes run ("latlab serve"); "" means this one
	Version  string                  // latlab's version, stored with each experiment
	Log      io.Writer               // what Run is doing: one line per step, and per trial unless Trials is set; nil discards
	Trials   io.Writer               // one line per finished trial, as latlab run prints them; nil means Log
	Progress experiment.ProgressLine // the trial under way, live; nil shows none
}

// Outcome is what Run did.
type Outcome struct {
	Dir         string             // the folder, absolute
	DB          string             // the results database
	Report      string             // the demo experiment's HTML report; "" if not written
	RampReport  string             // the ramp's HTML report; "" if not written
	Sweep, Ramp experiment.Outcome // what each experiment's runner did
	Interrupted bool               // the context ended before the end; run again to resume
}

// Failed returns how many trials failed.
func (o Outcome) Failed() int { return o.Sweep.Failed + o.Ramp.Failed }

// A DirError is a folder Run cannot write into.
type DirError struct {
	Dir string
	Err error
}

func (e *DirError) Error() string { return fmt.Sprintf("demo folder %s: %v", e.Dir, e.Err) }
func (e *DirError) Unwrap() error { return e.Err }

// Run runs the demo: it writes its inputs into opt.Dir, runs the ramp and
// then the demo experiment into results.db there, writes both reports and
// prints the headline to w. Trials that fail are counted in the outcome,
// not returned as an error; the reports are written all the same.
//
// When ctx ends, Run stops the trial under way (stored as interrupted),
// tears the graphs down and returns with Outcome.Interrupted set, without
// writing reports. Running it again with the same options resumes after
// the last trial stored.
func Run(ctx context.Context, opt Options, w io.Writer) (Outcome, error) {
	var out Outcome
	dir := opt.Dir
	if dir == "" {
		dir = DefaultDir
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return out, &DirError{Dir: opt.Dir, Err: err}
	}
	out.Dir, out.DB = dir, filepath.Join(dir, DBFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return out, &DirError{Dir: dir, Err: err}
	}
	if err := writeFiles(dir); err != nil {
		return out, &DirError{Dir: dir, Err: err}
	}
	sweepName, rampName := sweepSpec, rampSpec
	if opt.Quick {
		sweepName, rampName = quickSweepSpec, quickRampSpec
	}
	sweep, err := spec.ReadSpec(filepath.Join(dir, sweepName))
	if err != nil {
		return out, err
	}
	ramp, err := spec.ReadSpec(filepath.Join(dir, rampName))
	if err != nil {
		return out, err
	}
	nodeLog, err := os.OpenFile(filepath.Join(dir, NodeLogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return out, &DirError{Dir: dir, Err: err}
	}
	defer nodeLog.Close()
	fmt.Fprintf(nodeLog, "--- latlab demo, %s\n", time.Now().Format(time.RFC3339))
	db, err := store.Open(ctx, out.DB)
	if err != nil {
		return out, &DirError{Dir: dir, Err: err}
	}
	defer db.Close()

	logf(opt.Log, "latlab demo: %s into %s, about %s", planText(sweep, ramp), dir, estimate(sweep, ramp).Round(10*time.Second))
	// The ramp runs first, so that the demo experiment is the file's
	// latest: the one "latlab report results.db" shows.
	r := runner{opt: opt, db: db, nodeLog: nodeLog}
	if out.Ramp, err = r.run(ctx, ramp); err != nil {
		return out, err
	}
	if !out.Ramp.Interrupted {
		if out.Sweep, err = r.run(ctx, sweep); err != nil {
			return out, err
		}
	}
	if out.Ramp.Interrupted || out.Sweep.Interrupted {
		out.Interrupted = true
		return out, nil
	}
	// The reports are written whatever the caller's context: the load is
	// over, and they take a second or two.
	rctx := context.WithoutCancel(ctx)
	heads, err := writeReports(rctx, db, &out, sweep, filepath.Join(dir, sweepName))
	if err != nil {
		return out, err
	}
	return out, writeHeadline(w, heads, out, sweepName)
}

// runner runs the demo's experiments into one database.
type runner struct {
	opt     Options
	db      *store.DB
	nodeLog io.Writer
}

// run runs spec's plan, resuming an earlier run of it. A file whose
// experiment of the same name ran another spec (an older latlab's demo)
// gets a new experiment beside it.
func (r runner) run(ctx context.Context, spec *spec.Spec) (experiment.Outcome, error) {
	x := &experiment.Runner{Spec: spec, DB: r.db, Binary: r.opt.Binary, Version: r.opt.Version,
		Log: r.opt.Log, Trials: r.opt.Trials, Progress: r.opt.Progress, NodeOutput: r.nodeLog}
	logf(r.opt.Log, "%s: %s", spec.Name, describe(spec))
	out, err := x.Run(ctx)
	var changed *experiment.ChangedError
	if errors.As(err, &changed) {
		logf(r.opt.Log, "%s: the file's experiment %d ran another spec; starting a new one beside it", spec.Name, changed.ID)
		x.New = true
		out, err = x.Run(ctx)
	}
	if err != nil {
		return out, fmt.Errorf("experiment %s: %w", spec.Name, err)
	}
	if out.Skipped > 0 {
		logf(r.opt.Log, "%s: resumed experiment %d, %d of %d trials done before", spec.Name, out.Experiment.ID, out.Skipped, out.Trials)
	}
	return out, nil
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
