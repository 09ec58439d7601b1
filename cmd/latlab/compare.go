package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/perf/benchfmt"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/benchcmp"
)

// compareFlags holds the flags of latlab compare.
type compareFlags struct {
	format         string
	holm           bool
	experiment     string
	includeFlagged bool
}

// compareLong is latlab compare's help.
const compareLong = `compare prints benchstat's table for two inputs of one kind:

  - two outputs of go test -bench (found by their content: a line starting
    with "Benchmark" or "goos:"): one table per configuration and unit
    (sec/op from ns/op, B/op, allocs/op and custom units), one row per
    benchmark named as benchstat names it;
  - two results databases of latlab run or attack (found by their SQLite
    header), before.db after.db: the latest experiment of each, or the
    one --experiment names in both (by id, or by name for the latest of
    that name), as latlab report picks it;
  - two variants, of one database or of two, as FILE:VARIANT:
    results.db:plain results.db:filter. An argument is FILE:VARIANT when
    FILE exists and the whole argument does not, so a file name may hold
    ":" too.

For databases, the samples are the runs: each run's percentile of the
latency from the intended send is one value, as each -count run of a
benchmark is. There is one table per percentile (p50, p90, p99, p99.9),
in seconds, and one row per level (rate=100/s, c=8) that both sides
measured. Two databases of one variant each are compared whatever the
variants' names; otherwise each variant both sides have is compared with
its namesake, in rows named like plain/rate=100/s. Notes under the tables
name the variants and levels only one side has, the runs left out and
the percentiles n/a in a run. Flagged and unfinished runs are left out
unless --include-flagged.

Each row shows the median of each side with the 95% interval of the
median, the change of the medians and the Mann-Whitney U p-value, "~"
when p > 0.05, and a geomean row. The numbers are benchmath's, as
benchstat's are. latlab adds a last column: a 95% interval on the change,
the Hodges-Lehmann estimate of new/old (the median of all pairwise
ratios) bounded by the distribution-free interval that inverts the same
U test.

--holm corrects the p-values of all rows with Holm-Bonferroni before
deciding what is significant; without it the table is benchstat's.

--format text (the default), json, csv or markdown. The column headers
are the arguments as given.

Inputs of two kinds, a file that cannot be parsed or read, an unknown
experiment or variant exit with code 2 and name the file and the reason.`

// compareExample are latlab compare's examples.
const compareExample = `  # before and after a change, 10 runs each
  go test -run '^$' -bench . -count 10 > old.txt
  git stash pop
  go test -run '^$' -bench . -count 10 > new.txt
  latlab compare old.txt new.txt

  # for a pull request, with Holm's correction over all rows
  latlab compare old.txt new.txt --holm --format markdown

  # two results databases: the latest experiment of each
  latlab compare before.db after.db

  # two variants of one results database
  latlab compare results.db:plain results.db:filter --experiment filter-overhead`

func newCompare(stdout, _ io.Writer) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:     "compare OLD NEW",
		Short:   "Compare two go test -bench outputs, results databases or variants, benchstat style",
		Long:    compareLong,
		Example: compareExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("compare takes two inputs, OLD and NEW, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd.Context(), args[0], args[1], stdout)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.format, "format", "text", "output: text, json, csv or markdown")
	fl.BoolVar(&f.holm, "holm", false, "apply Holm-Bonferroni correction across all rows")
	fl.StringVar(&f.experiment, "experiment", "", "databases: the experiment of both, by id or name (default the latest)")
	fl.BoolVar(&f.includeFlagged, "include-flagged", false, "databases: count flagged and unfinished runs too")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "csv", "markdown"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (f *compareFlags) run(ctx context.Context, oldArg, newArg string, stdout io.Writer) error {
	var write func(*benchcmp.BenchComparison, io.Writer) error
	switch f.format {
	case "text":
		write = (*benchcmp.BenchComparison).WriteText
	case "json":
		write = (*benchcmp.BenchComparison).WriteJSON
	case "csv":
		write = (*benchcmp.BenchComparison).WriteCSV
	case "markdown", "md":
		write = (*benchcmp.BenchComparison).WriteMarkdown
	default:
		return usagef("--format %q: want text, json, csv or markdown", f.format)
	}
	oldIn, err := resolveInput(oldArg)
	if err != nil {
		return err
	}
	newIn, err := resolveInput(newArg)
	if err != nil {
		return err
	}
	if oldIn.kind != newIn.kind {
		return usagef("%s is %s but %s is %s; compare two of a kind", oldArg, oldIn.kind, newArg, newIn.kind)
	}
	var c *benchcmp.BenchComparison
	if oldIn.kind == benchInput {
		c, err = f.compareBench(oldIn, newIn)
	} else {
		c, err = f.compareDBs(ctx, oldIn, newIn)
	}
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := write(c, &b); err != nil {
		return err
	}
	_, err = stdout.Write(b.Bytes())
	return err
}

func (f *compareFlags) compareBench(oldIn, newIn compareInput) (*benchcmp.BenchComparison, error) {
	for _, fl := range []struct {
		name string
		set  bool
	}{{"--experiment", f.experiment != ""}, {"--include-flagged", f.includeFlagged}} {
		if fl.set {
			return nil, usagef("%s is for results databases; %s and %s are go test -bench outputs", fl.name, oldIn.arg, newIn.arg)
		}
	}
	if filepath.Clean(oldIn.path) == filepath.Clean(newIn.path) {
		return nil, usagef("%s is both the old and the new results: give two files, such as go test -bench's output before and after a change", oldIn.arg)
	}
	c, err := benchcmp.CompareBench(oldIn.path, newIn.path, benchcmp.BenchOptions{Holm: f.holm})
	if err != nil {
		var se *benchfmt.SyntaxError
		if errors.As(err, &se) {
			return nil, usageError{err}
		}
		return nil, err
	}
	return c, nil
}

func (f *compareFlags) compareDBs(ctx context.Context, oldIn, newIn compareInput) (*benchcmp.BenchComparison, error) {
	loaded := map[string]*analysis.Experiment{} // by path: results.db:a results.db:b reads it once
	sides := make([]benchcmp.RunSet, 2)
	for i, in := range []compareInput{oldIn, newIn} {
		exp := loaded[in.path]
		if exp == nil {
			var err error
			if exp, err = f.load(ctx, in.path); err != nil {
				return nil, err
			}
			loaded[in.path] = exp
		}
		sides[i] = benchcmp.RunSet{Name: in.arg, Experiment: exp.Name, Runs: exp.Runs, Variant: in.variant}
	}
	c, err := benchcmp.CompareRuns(sides[0], sides[1], benchcmp.RunsOptions{
		BenchOptions: benchcmp.BenchOptions{Holm: f.holm}, IncludeFlagged: f.includeFlagged})
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// load reads the experiment to compare from the results database at
// path, picked as latlab report picks it.
func (f *compareFlags) load(ctx context.Context, path string) (*analysis.Experiment, error) {
	db, err := openDB(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	id, err := (&reportFlags{experiment: f.experiment}).pick(ctx, db, path)
	if err != nil {
		return nil, err
	}
	exp, err := analysis.Load(ctx, db, id)
	if err != nil {
		return nil, usageError{err}
	}
	return exp, nil
}
