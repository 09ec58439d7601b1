package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/demo"
	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/report"
)

// demoLong is latlab demo's help.
const demoLong = `demo runs a whole latlab study on this machine with nothing installed but
latlab, in about four minutes on two cores (--quick: under 90 s; it took
68 s and 72 s on a 2-core machine at load average 10 to 26 with stress-ng
--cpu 2 beside it).

It writes its inputs into the folder -o (default ./latlab-demo): three
topologies of a 3-node chain (root → branch → leaf, 2 ms of CPU each) as
graphs/chain.yaml, graphs/chain-proxy.yaml (one more hop: a pure reverse
proxy) and graphs/chain-filter.yaml (fair-queue admission and a 10 ms delay
for user bob, each filter's own latency measured); the requests, users.txt
(alice four times in five, then bob); and two experiment specs. Then it
runs, into results.db there:

  - ramp.yaml: the filtered chain in closed loop, stepped up to 300
    requests in flight, filling the fair queue's seats and queues;
  - demo.yaml: the three variants in open loop at 40, 70 and 100
    requests/s, six runs of each after a warm-up, in a shuffled order:
    the runs a 95% CI of each median needs, with 120 requests or more a
    run, enough for the p50 and p90 it compares.

It writes report.html (the three variants) and ramp.html (the ramp, its
flagged run counted) as latlab report does, and prints the headline: each
variant's overhead against the chain at p50 and p90 with its 95% CI, and
the ramp's latency at the top. Every run measures the machine too (load
average, other processes' CPU time, steal): when runs were flagged, as
they are on a busy machine, the headline and the report say how many were
left out, what the machine was doing and what to do.

--quick runs demo-quick.yaml and ramp-quick.yaml instead: the same
variants and ramp with two rates, three runs of each and shorter runs, too
few for any interval, as it says; it is what CI runs.

As latlab run does, it prints a line per finished trial on stdout and what
it is doing on stderr. The graph nodes' output goes to nodes.log in the
folder. The first Ctrl-C
stops the trial under way, stores what was measured and stops every node;
running the same command again resumes after the last trial stored. The
files are plain latlab inputs: latlab run, report, ls and compare read
them as they read your own.`

// demoExample are latlab demo's examples.
const demoExample = `  latlab demo
  latlab demo --quick -o /tmp/demo

  # then, on what it wrote
  latlab report latlab-demo/results.db
  latlab compare latlab-demo/results.db:chain latlab-demo/results.db:chain-proxy`

func newDemo(stdout, stderr io.Writer) *cobra.Command {
	var (
		dir      string
		quick    bool
		progress bool
	)
	cmd := &cobra.Command{
		Use:     "demo",
		Short:   "Run a small study on this machine, from a service graph to an HTML report",
		Long:    demoLong,
		Example: demoExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("demo takes no arguments, got %q; give the folder with -o", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding the latlab executable: %w", err)
			}
			opt := demo.Options{Dir: dir, Quick: quick, Binary: bin, Version: latlabVersion(), Log: stderr, Trials: stdout}
			if progress || isTerminal(stderr) {
				opt.Progress = report.NewLine[experiment.Progress](stderr)
			}
			out, err := demo.Run(cmd.Context(), opt, stdout)
			var dirErr *demo.DirError
			switch {
			case errors.As(err, &dirErr):
				return usageError{err}
			case err != nil:
				return err
			case out.Interrupted:
				fmt.Fprintf(stdout, "interrupted: run the same command again to resume\n")
				return errInterrupted
			case out.Failed() > 0:
				return fmt.Errorf("%d trials failed; see the log above and %s", out.Failed(), out.DB)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&dir, "output", "o", demo.DefaultDir, "the folder for the inputs, results.db and the reports")
	fl.BoolVar(&quick, "quick", false, "the short form, for CI: fewer rates and repetitions, shorter runs")
	fl.BoolVar(&progress, "progress", false, "show live progress on stderr even when it is not a terminal")
	_ = cmd.MarkFlagDirname("output")
	return cmd
}
