package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// lsFlags holds the flags of latlab ls.
type lsFlags struct {
	experiment int64
	format     string
	kubernetes bool
	kube       kubeFlags
	name       string // with --kubernetes: the experiment whose objects to list
}

func newLs(stdout io.Writer) *cobra.Command {
	var f lsFlags
	cmd := &cobra.Command{
		Use:   "ls FILE.db | ls --kubernetes [EXPERIMENT]",
		Short: "List the experiments and runs of a results database",
		Long: `ls lists the experiments of a results database, as latlab run and
latlab attack -o FILE.db write it, oldest first: id, name, creation time,
the start of the spec's hash, how many of the runs stored are done, the
host and the latlab version. Under each come its runs in plan order:
position, variant, rate (requests/s, or closed for a closed loop),
concurrency, repetition, status (done, interrupted or failed), requests
completed, latency p50 and p99 from the intended send, and the names of the
validity flags raised.

The file is opened read-only, also while latlab writes it. A missing file
or one that is not a latlab database exits with code 2.

With --kubernetes, ls lists instead what latlab made in a cluster and is
still there, in every namespace: the objects labelled
app.kubernetes.io/managed-by=latlab (of EXPERIMENT only, if given), with
their experiment, variant, kind, namespace, name and age. An experiment
deletes what it applied when it ends, also after Ctrl-C; what is listed
was left by one that was killed or run with --keep, and latlab clean
--kubernetes removes it.`,
		Example: `  # every experiment and run
  latlab ls results.db

  # one experiment, as JSON
  latlab ls results.db --experiment 2 --format json

  # what latlab left in the cluster of the current kubeconfig context
  latlab ls --kubernetes`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.kubernetes {
				if len(args) > 1 {
					return usagef("ls --kubernetes takes at most one experiment name, got %d arguments", len(args))
				}
				return nil
			}
			return oneArg("results database")(cmd, args)
		},
		ValidArgsFunction: completeDB,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.kubernetes {
				if len(args) == 1 {
					f.name = args[0]
				}
				if err := f.checkFormat(); err != nil {
					return err
				}
				return f.lsKubernetes(cmd.Context(), stdout)
			}
			return f.run(cmd.Context(), args[0], stdout)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.Int64Var(&f.experiment, "experiment", 0, "list only the experiment with this id")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.BoolVar(&f.kubernetes, "kubernetes", false, "list what latlab left in a Kubernetes cluster instead")
	f.kube.register(fl)
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// lsExperiment is one experiment as ls shows it; its JSON form is ls
// --format json's.
type lsExperiment struct {
	ID            int64            `json:"id"`
	Name          string           `json:"name"`
	CreatedAt     time.Time        `json:"created_at"`
	SpecHash      string           `json:"spec_hash"`
	FormatVersion int              `json:"format_version"`
	RunsDone      int              `json:"runs_done"`
	RunsStored    int              `json:"runs_stored"`
	Provenance    store.Provenance `json:"provenance"`
	Runs          []lsRun          `json:"runs"`
}

// lsRun is one run as ls shows it.
type lsRun struct {
	ID          int64        `json:"id"`
	Position    int          `json:"position"`
	Variant     string       `json:"variant"`
	Rate        float64      `json:"rate"` // requests/s; 0 in closed loop
	Concurrency int          `json:"concurrency"`
	Rep         int          `json:"rep"`
	Mode        string       `json:"mode,omitempty"`
	Status      store.Status `json:"status"`
	StartedAt   time.Time    `json:"started_at"`
	EndedAt     time.Time    `json:"ended_at"`
	Requests    int64        `json:"requests"`
	P50         *float64     `json:"p50_seconds"` // latency; null without enough samples
	P99         *float64     `json:"p99_seconds"`
	Samples     int64        `json:"samples"` // raw samples stored
	Flags       []store.Flag `json:"flags"`
	Error       string       `json:"error,omitempty"`
	// Damaged says what of the run's row does not decode: the run is
	// listed with what does.
	Damaged string `json:"damaged,omitempty"`
}

// checkFormat checks --format.
func (f *lsFlags) checkFormat() error {
	switch f.format {
	case "text", "json":
		return nil
	}
	return usagef("--format: want text or json, got %q", f.format)
}

func (f *lsFlags) run(ctx context.Context, path string, stdout io.Writer) error {
	if err := f.checkFormat(); err != nil {
		return err
	}
	if f.experiment < 0 {
		return usagef("--experiment: want an experiment id, got %d", f.experiment)
	}
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return usageError{err}
	}
	defer db.Close()
	exps, err := f.list(ctx, db, path)
	if err != nil {
		return err
	}
	if f.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			File        string         `json:"file"`
			Experiments []lsExperiment `json:"experiments"`
		}{path, exps})
	}
	return writeLs(stdout, path, exps)
}

// list reads the experiments to show, with their runs.
func (f *lsFlags) list(ctx context.Context, db *store.DB, path string) ([]lsExperiment, error) {
	var exps []store.Experiment
	if f.experiment != 0 {
		e, err := db.Experiment(ctx, f.experiment)
		if errors.Is(err, store.ErrNotFound) {
			return nil, usagef("--experiment %d: %s has no such experiment", f.experiment, path)
		}
		if err != nil {
			return nil, err
		}
		exps = append(exps, e)
	} else {
		var err error
		if exps, err = db.Experiments(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]lsExperiment, 0, len(exps))
	for _, e := range exps {
		runs, err := db.Runs(ctx, e.ID)
		damaged, ok := store.DamagedRows(err)
		if !ok {
			return nil, err
		}
		why := map[int64]string{}
		for _, d := range damaged {
			r := store.Run{ID: d.RunID}
			if d.Run != nil {
				r = *d.Run
			}
			runs, why[r.ID] = append(runs, r), d.Error()
		}
		slices.SortStableFunc(runs, func(a, b store.Run) int { return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.ID, b.ID)) })
		le := lsExperiment{ID: e.ID, Name: e.Name, CreatedAt: e.CreatedAt.UTC(), SpecHash: e.SpecHash,
			FormatVersion: e.FormatVersion, RunsStored: len(runs), Provenance: e.Provenance, Runs: []lsRun{}}
		for _, r := range runs {
			if r.Status == store.Done {
				le.RunsDone++
			}
			lr := lsRun{ID: r.ID, Position: r.Position, Variant: r.Variant, Rate: r.Rate,
				Concurrency: r.Concurrency, Rep: r.Rep, Mode: r.Mode, Status: r.Status,
				StartedAt: r.StartedAt.UTC(), EndedAt: r.EndedAt.UTC(), Samples: r.Samples,
				Flags: r.Flags, Error: r.Error, Damaged: why[r.ID]}
			if lr.Flags == nil {
				lr.Flags = []store.Flag{}
			}
			if s := r.Summary; s != nil {
				lr.Requests, lr.P50, lr.P99 = s.Requests, s.Latency.P50, s.Latency.P99
			}
			le.Runs = append(le.Runs, lr)
		}
		out = append(out, le)
	}
	return out, nil
}

// writeLs writes exps as text: a line per experiment and a table of its
// runs.
func writeLs(w io.Writer, path string, exps []lsExperiment) error {
	if len(exps) == 0 {
		_, err := fmt.Fprintf(w, "%s holds no experiments\n", textsafe.Escape(path))
		return err
	}
	tw := tabwriter.NewWriter(textsafe.NewWriter(w), 0, 0, 2, ' ', 0)
	for i, e := range exps {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "experiment %d  %s  created %s  spec %.12s  %d/%d runs done", e.ID, textsafe.Escape(e.Name),
			e.CreatedAt.Format("2006-01-02 15:04:05Z"), e.SpecHash, e.RunsDone, e.RunsStored)
		if p := e.Provenance; p.Host != "" || p.LatlabVersion != "" {
			fmt.Fprintf(tw, "  host %s  latlab %s", lsOrDash(p.Host), lsOrDash(p.LatlabVersion))
		}
		fmt.Fprintln(tw)
		if len(e.Runs) == 0 {
			fmt.Fprintln(tw, "  no runs yet")
			continue
		}
		fmt.Fprintln(tw, "  position\tvariant\trate\tconcurrency\trep\tstatus\trequests\tp50\tp99\tflags")
		for _, r := range e.Runs {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\t%s\n", r.Position, textsafe.Escape(r.Variant), lsRate(r),
				r.Concurrency, r.Rep, textsafe.Escape(string(r.Status)), r.Requests, lsSeconds(r.P50), lsSeconds(r.P99), lsFlagNames(r.Flags))
		}
		for _, r := range e.Runs {
			if r.Damaged != "" {
				fmt.Fprintf(tw, "  warning: run %d: damaged row: %s\n", r.ID, textsafe.Escape(r.Damaged))
			}
		}
	}
	return tw.Flush()
}

// lsRate is a run's rate as requests/s, or its closed-loop mode.
func lsRate(r lsRun) string {
	switch {
	case r.Rate > 0:
		return units.ExactRate(r.Rate)
	case r.Mode == "sequential":
		return "sequential"
	}
	return "closed"
}

// lsSeconds formats a percentile in seconds, "-" for none.
func lsSeconds(s *float64) string {
	if s == nil {
		return "-"
	}
	return units.Seconds(*s)
}

func lsFlagNames(flags []store.Flag) string {
	if len(flags) == 0 {
		return "-"
	}
	names := make([]string, len(flags))
	for i, f := range flags {
		names[i] = textsafe.Escape(f.Name)
	}
	return strings.Join(names, ",")
}

// lsOrDash is s escaped for a terminal, or "-" for none.
func lsOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return textsafe.Escape(s)
}
