package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/textsafe"
)

// cleanFlags holds the flags of latlab clean.
type cleanFlags struct {
	kubernetes bool
	all        bool
	dryRun     bool
	kube       kubeFlags
}

func newClean(stdout io.Writer) *cobra.Command {
	var f cleanFlags
	cmd := &cobra.Command{
		Use:   "clean --kubernetes (EXPERIMENT | --all)",
		Short: "Remove what latlab left in a Kubernetes cluster",
		Long: `clean deletes what latlab made in a Kubernetes cluster and left there: the
objects labelled app.kubernetes.io/managed-by=latlab and
latlab.io/experiment=EXPERIMENT, in every namespace, or those of every
experiment with --all; the namespaces latlab created go last. It waits
until they and their pods are gone (2 minutes at most) and lists what it
deleted. An experiment deletes what it applied when it ends, also after
Ctrl-C; clean is for what one that was killed, or run with --keep, left.
latlab ls --kubernetes lists the same objects without deleting them.`,
		Example: `  # what the experiment mesh-sweep left
  latlab clean --kubernetes mesh-sweep

  # everything latlab left, after looking at it
  latlab ls --kubernetes
  latlab clean --kubernetes --all`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case !f.kubernetes:
				return usagef("clean removes what latlab left in a cluster: give --kubernetes")
			case f.all && len(args) > 0:
				return usagef("clean: give an experiment name or --all, not both")
			case !f.all && len(args) != 1:
				return usagef("clean: give the experiment whose objects to delete, or --all for every experiment's")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return f.run(cmd.Context(), name, stdout)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.BoolVar(&f.kubernetes, "kubernetes", false, "remove what latlab left in a Kubernetes cluster")
	fl.BoolVar(&f.all, "all", false, "remove every experiment's objects, not one's")
	fl.BoolVar(&f.dryRun, "dry-run", false, "list what would be deleted; delete nothing")
	f.kube.register(fl)
	return cmd
}

func (f *cleanFlags) run(ctx context.Context, name string, stdout io.Writer) error {
	c, err := f.kube.connect()
	if err != nil {
		return usageError{err}
	}
	list, verb := c.Clean, "deleted"
	if f.dryRun {
		list, verb = c.Leftovers, "would delete"
	}
	objs, err := list(ctx, name)
	stdout = textsafe.NewWriter(stdout)
	for _, l := range objs {
		fmt.Fprintf(stdout, "%s %s (experiment %s)\n", verb, l.Ref, l.Experiment)
	}
	if len(objs) == 0 && err == nil {
		fmt.Fprintf(stdout, "%s: nothing of latlab's to delete\n", c.Where)
	}
	return err
}
