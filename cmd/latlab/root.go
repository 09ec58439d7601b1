package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/yamlfile"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1 // the command could not do its job
	exitUsage       = 2 // bad input: flags, arguments, files
	exitInterrupted = 130
)

// usageError marks bad input, which exits with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errInterrupted reports a command that stopped early on a signal after
// writing what it had.
var errInterrupted = errors.New("interrupted")

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		return exitInterrupted
	}
	fmt.Fprintf(stderr, "latlab: %s\n", textsafe.Layout(err.Error()))
	var u usageError
	if errors.As(err, &u) {
		return exitUsage
	}
	return exitFailure
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "latlab",
		Short: "Measure what a hop in a request path costs",
		Long: `latlab measures what a hop in a request path — a service, a proxy, a
sidecar, a filter — adds to latency, and how that grows with load.

Latency is measured from each request's intended send time, so queueing in
the target is never hidden (coordinated omission), into HdrHistograms: in
512 ns steps below 0.5 ms, to 3 significant digits above.`,
		Example: `  # 1000 requests per second for 30 s, open loop
  latlab attack http://127.0.0.1:8080/ -r 1000 -d 30s

  # 50 connections as fast as they go, JSON out
  latlab attack http://127.0.0.1:8080/ -c 50 -d 10s --format json`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			var names []string
			for _, c := range cmd.Commands() {
				if !c.Hidden {
					names = append(names, c.Name())
				}
			}
			if c := yamlfile.Closest(args[0], names); c != "" {
				return usagef("unknown command %q; did you mean %s?", args[0], c)
			}
			return usagef("unknown command %q; run \"latlab help\" for the commands", args[0])
		},
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		Version: versionText(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newAttack(stdout, stderr), newServe(stdout, stderr), newRun(stdout, stderr), newGraph(stdout, stderr), newLs(stdout), newClean(stdout), newVersion(stdout), newSpec(stdout), newCompare(stdout, stderr), newScale(stdout, stderr), newReport(stdout, stderr), newDemo(stdout, stderr), newAgent(stderr))
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = `  # this shell only
  source <(latlab completion bash)

  # every new zsh
  latlab completion zsh > "${fpath[1]}/_latlab"`
		}
	}
	return root
}
