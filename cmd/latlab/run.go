package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// runFlags are latlab run's flags.
type runFlags struct {
	output   string
	dryRun   bool
	fresh    bool
	seed     int64
	samples  int64
	progress bool
	quiet    bool
	keep     bool
	gate     sloFlags
	kube     kubeFlags
}

// runLong is latlab run's help.
const runLong = `run reads an experiment spec, checks all of it before sending any load, and
runs its plan — every variant at every rate (or concurrency), as many times as
it says, in a seeded interleaved order — into one SQLite results database.

Each trial sets its variant up (a graph latlab starts, or an external target
with setup, ready and teardown commands), warms it up (stored apart), loads it
with side-loads and probes alongside, checks the run's validity and commits
the run in one transaction. Run the same command again and it resumes after
the last committed run; raise runs: and it goes on with the same experiment,
its runs kept, running only the new repetitions (interleaved as the plan
orders them, from the stored seed); any other change to the spec, and lowering
runs:, is refused, with what changed, unless --new starts another experiment
in the same file. runs: auto (or runs: {min, max, precision, relative,
quantiles, budget}) runs min repetitions, then one at a time of each variant
and level whose overheads' 95% intervals are still wider than the precision
asked (a share of the baseline's value) and than the relative share of the
overhead itself, up to max or the budget, and prints why each stopped. Each trial prints one
line on stdout as it finishes, terminal or not (a CI log shows the run
advancing); a live status line shows on stderr when it is a terminal, or
with --progress. --dry-run prints every command the spec runs, the plan
and how long it takes: exactly where the spec fixes a trial's length, and
estimated, saying what the estimate assumes, where a trial ends at a request
count, and the seed of the interleaved order. A spec without seed: gets a
seed drawn at random, which the dry run prints: --seed N runs exactly the
order a dry run showed (with a seed: in the spec, --seed must agree with it).
The database keeps the seed, and a resumed experiment keeps its order; its
dry run shows the trials left. The first Ctrl-C stops the
trial under way, stores it marked interrupted and tears the variants down.

A spec is code, as a Makefile is: run runs its variants' setup, start,
configure and teardown commands with sh -c in the spec's folder, and its
graphs' nodes run their fork commands and stress-ng jobs, all with your
privileges. Read a spec you did not write before you run it: --dry-run lists
every command it would run, with its variant and when, and runs none.

The spec's cpus: field keeps the generator off the targets' cores: cpus:
{load: 0} runs latlab on CPU 0 and starts every graph node, start, setup and
teardown command on the other CPUs (or on cpus: {targets: ...}); --dry-run
shows it.

A spec's variants may run on a Kubernetes cluster (graph: with on: kubernetes,
or kubernetes: {manifests: DIR} beside a target) and its load too (load: {on:
kubernetes}): run reaches the cluster as kubectl does (--kubeconfig,
--context, $KUBECONFIG, ~/.kube/config or in-cluster), applies each variant
once and keeps it across its warm-up and runs, runs each trial's load in a pod
it reaches through the API server, and deletes what it applied at the end,
also after Ctrl-C, unless --keep. Everything it creates is labelled with the
experiment's name: latlab ls --kubernetes lists what is left, latlab clean
--kubernetes removes it.

One process writes a results database at a time: another run into it exits
2 at once, naming the process that writes it (pid, host, since when), and a
file another connection keeps locked is refused before any load. A trial's
line says done once its run is committed; a run that cannot be committed
after five attempts is kept in a side file beside the database
(results.db.pending-EXPERIMENT-POSITION.db, a results database of its own),
the run stops with exit 1 naming it, and the next run imports it.

Each run is checked against the spec's validity: bounds and stored with its
flags and their reasons (generator_saturated, target_cpu_high, errors,
inconsistent, trend, too_few_samples); latlab report leaves runs flagged
other than too_few_samples out unless --include-flagged. too_few_samples
asks for the requests a p99 needs (1000); a study that reads p90 at most
says validity: {samples_for: p90} (100). Every run also measures the
machine (load average, other processes' CPU time, steal) as probe
"machine".

The spec's slo: field (such as slo: {p99: 50ms, errors: 1%}) makes the run a
gate for CI pipelines; --slo 'p99<50ms,errors<1%' on the command line
overrides it, and --slo '' judges nothing. Once the plan has run, or been
interrupted (then on what was measured), run prints the SLO's verdict as
latlab report does — each variant's knee and the rows that break it — and
exits 1 when a variant at a level breaks a limit. A limit counts as broken
only when the 95% CI of the median over the valid runs lies wholly past it
(with fewer than 6 runs, when every run is past it); --slo-strict judges the
median itself. An interrupted run still exits 130.

Every spec key, its type and default: latlab spec (docs/spec.md).`

// runExample are latlab run's examples.
const runExample = `  latlab run examples/experiments/filter-overhead.yaml --dry-run
  latlab run examples/experiments/filter-overhead.yaml -o results.db
  latlab run examples/experiments/filter-overhead.yaml -o results.db --seed 42   # the order a dry run printed for seed 42
  sqlite3 results.db 'SELECT variant, rate, rep, status FROM runs'

  # a CI gate on another SLO than the spec's slo:, judged on the medians themselves
  latlab run examples/experiments/filter-overhead.yaml -o results.db --slo 'p99<50ms,errors<1%' --slo-strict`

func newRun(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:     "run SPEC",
		Short:   "Run an experiment: variants × rates × repetitions into a results database",
		Long:    runLong,
		Example: runExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("want one spec file, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, args[0], stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "results.db", "the results database")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan and send nothing")
	fl.BoolVar(&f.fresh, "new", false, "start a new experiment even though the file's latest one ran a different spec")
	fl.Int64Var(&f.seed, "seed", 0, "seed of a new experiment's interleaved order, as --dry-run prints it (default: the spec's seed:, else drawn at random)")
	fl.Int64Var(&f.samples, "samples", load.DefaultSamples, "requests kept raw per run (0: none)")
	fl.BoolVar(&f.progress, "progress", false, "show live progress on stderr even when it is not a terminal")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "do not relay the variants' own output to stderr")
	fl.BoolVar(&f.keep, "keep", false, "leave what was deployed to the cluster there at the end")
	f.kube.register(fl)
	f.gate.register(fl, " (default: the spec's slo:)")
	_ = cmd.MarkFlagFilename("output", "db")
	return cmd
}

// run runs the experiment of the spec file path into --output, or prints
// its plan with --dry-run.
func (f *runFlags) run(cmd *cobra.Command, path string, stdout, stderr io.Writer) (rerr error) {
	sp, err := spec.ReadSpec(path)
	if err != nil {
		return usageError{err}
	}
	slo, err := f.gate.parse(cmd.Flags().Changed("slo"), analysis.SLOOf(sp.SLO))
	if err != nil {
		return err
	}
	r := &experiment.Runner{Spec: sp, New: f.fresh, Keep: f.keep, Kubernetes: f.kube.options()}
	if cmd.Flags().Changed("seed") {
		r.Seed = &f.seed
	}
	if f.dryRun {
		return dryRunPlan(cmd.Context(), r, f.output, stdout)
	}
	if f.samples < 0 {
		return usagef("--samples: want 0 or more, got %d", f.samples)
	}
	ctx := cmd.Context()
	db, err := store.Open(ctx, f.output)
	if err != nil {
		return usageError{err}
	}
	// A database whose last write cannot reach its file is a failed run,
	// whatever else went well.
	defer func() {
		if cerr := db.Close(); cerr != nil && rerr == nil {
			rerr = cerr
		}
	}()
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the latlab executable: %w", err)
	}
	r.DB, r.Binary, r.Version, r.Samples, r.Log, r.Trials = db, bin, latlabVersion(), &f.samples, stderr, stdout
	if f.progress || isTerminal(stderr) {
		r.Progress = report.NewLine[experiment.Progress](stderr)
	}
	if !f.quiet {
		r.NodeOutput = stderr
	}
	out, err := r.Run(ctx)
	var changed *experiment.ChangedError
	var cpus *experiment.CPUError
	if errors.As(err, &changed) || errors.As(err, &cpus) {
		return usageError{fmt.Errorf("%s: %w", f.output, err)}
	}
	if err := seedError(err, f.output); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	f.ended(stdout, sp, out)
	var broken error
	if !slo.IsZero() {
		// After a Ctrl-C too: judge what was measured.
		if broken, err = runVerdict(context.WithoutCancel(ctx), db, out.Experiment.ID, slo, f.gate.strict, stdout); err != nil {
			return err
		}
	}
	switch {
	case out.Interrupted:
		fmt.Fprintf(stdout, "interrupted: run the same command again to resume\n")
		return errInterrupted
	case out.Failed > 0:
		return fmt.Errorf("%d trials failed; see the log above and the runs table", out.Failed)
	}
	return broken
}

// ended says what the run did: its trials, and why runs: auto stopped
// each variant and level.
func (f *runFlags) ended(stdout io.Writer, spec *spec.Spec, out experiment.Outcome) {
	verb := "ran"
	if out.Resumed {
		verb = "resumed"
	}
	if out.Raised != nil {
		fmt.Fprintf(stdout, "%s: experiment %d goes on with the runs it has\n", textsafe.Escape(out.Raised.String()), out.Experiment.ID)
	}
	trials := fmt.Sprintf("%d trials", out.Trials)
	if spec.Auto != nil {
		trials = fmt.Sprintf("%d trials at most (runs: auto)", out.Trials)
	}
	fmt.Fprintf(stdout, "%s experiment %d (%s) into %s: %s, %d done before, %d done now, %d flagged, %d failed\n",
		verb, out.Experiment.ID, textsafe.Escape(out.Experiment.Name), textsafe.Escape(f.output), trials, out.Skipped, out.Done, out.Flagged, out.Failed)
	for _, st := range out.Stops {
		fmt.Fprintf(stdout, "stopped: %s\n", textsafe.Escape(st.String()))
	}
}

// dryRunPlan prints what latlab run would do next without running it: the
// plan of a new experiment, or what is left of the one in output it would
// resume, and the seed of its order.
func dryRunPlan(ctx context.Context, r *experiment.Runner, output string, stdout io.Writer) error {
	if _, err := os.Stat(output); err == nil {
		db, err := store.OpenReadOnly(ctx, output)
		if err != nil {
			return usageError{err}
		}
		defer db.Close()
		r.DB = db
	}
	p, err := r.Preview(ctx)
	if err := seedError(err, output); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	return p.Write(stdout)
}

// seedError is err as a usage error when it is an *experiment.SeedError,
// naming the database output when its experiment fixes the seed; else nil.
func seedError(err error, output string) error {
	var seeds *experiment.SeedError
	switch {
	case !errors.As(err, &seeds):
		return nil
	case seeds.Experiment != 0:
		return usageError{fmt.Errorf("%s: %w", output, err)}
	}
	return usageError{err}
}
