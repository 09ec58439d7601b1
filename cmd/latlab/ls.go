package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
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
	listed, err := report.ListExperiments(ctx, db, exps)
	if err != nil {
		return err
	}
	l := report.Listing{File: path, Experiments: listed}
	if f.format == "json" {
		return l.WriteJSON(stdout)
	}
	return l.WriteText(stdout)
}

// list reads the experiments to show: --experiment's, or all.
func (f *lsFlags) list(ctx context.Context, db *store.DB, path string) ([]store.Experiment, error) {
	if f.experiment == 0 {
		return db.Experiments(ctx)
	}
	e, err := db.Experiment(ctx, f.experiment)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usagef("--experiment %d: %s has no such experiment", f.experiment, path)
	}
	if err != nil {
		return nil, err
	}
	return []store.Experiment{e}, nil
}
