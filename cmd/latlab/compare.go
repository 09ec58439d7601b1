package main

import (
	"bytes"
	"errors"

	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/perf/benchfmt"

	"github.com/latlab/latlab/analysis"
)

// compareFlags holds the flags of latlab compare.
type compareFlags struct {
	format string
	holm   bool
}

func newCompare(stdout, _ io.Writer) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two go test -bench outputs, benchstat style",
		Long: `compare reads two outputs of go test -bench (found by their content: a
line starting with "Benchmark" or "goos:") and prints benchstat's table:
one table per configuration and unit (sec/op from ns/op, B/op, allocs/op
and custom units), one row per benchmark named as benchstat names it, the
median of each file with the 95% interval of the median, the change of the
medians and the Mann-Whitney U p-value, "~" when p > 0.05, and a geomean
row. The numbers are benchmath's, as benchstat's are.

latlab adds a last column: a 95% interval on the change, the
Hodges-Lehmann estimate of new/old (the median of all pairwise ratios)
bounded by the distribution-free interval that inverts the same U test.

--holm corrects the p-values of all rows with Holm-Bonferroni before
deciding what is significant; without it the table is benchstat's.

Comparing two results databases, or two variants of one (results.db:plain
results.db:filter), comes with latlab report.

A file that cannot be parsed exits with code 2 and names the file and line.`,
		Example: `  # before and after a change, 10 runs each
  go test -run '^$' -bench . -count 10 > old.txt
  git stash pop
  go test -run '^$' -bench . -count 10 > new.txt
  latlab compare old.txt new.txt

  # for a pull request, with Holm's correction over all rows
  latlab compare old.txt new.txt --holm --format markdown`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("compare takes two files, OLD and NEW, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			return f.run(args[0], args[1], stdout)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.format, "format", "text", "output: text, json, csv or markdown")
	fl.BoolVar(&f.holm, "holm", false, "apply Holm-Bonferroni correction across all rows")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "csv", "markdown"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (f *compareFlags) run(oldPath, newPath string, stdout io.Writer) error {
	var write func(*analysis.BenchComparison, io.Writer) error
	switch f.format {
	case "text":
		write = (*analysis.BenchComparison).WriteText
	case "json":
		write = (*analysis.BenchComparison).WriteJSON
	case "csv":
		write = (*analysis.BenchComparison).WriteCSV
	case "markdown", "md":
		write = (*analysis.BenchComparison).WriteMarkdown
	default:
		return usagef("--format %q: want text, json, csv or markdown", f.format)
	}
	for _, p := range []string{oldPath, newPath} {
		if err := checkBenchFile(p); err != nil {
			return err
		}
	}
	c, err := analysis.CompareBench(oldPath, newPath, analysis.BenchOptions{Holm: f.holm})
	if err != nil {
		var se *benchfmt.SyntaxError
		if errors.As(err, &se) {
			return usageError{err}
		}
		return err
	}
	var b bytes.Buffer
	if err := write(c, &b); err != nil {
		return err
	}
	_, err = stdout.Write(b.Bytes())
	return err
}

// errDatabases says what compare cannot do yet.
const errDatabases = "comparing results databases comes with latlab report; compare takes two go test -bench outputs for now"

// checkBenchFile returns a usage error unless path is go test -bench
// output.
func checkBenchFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if i := strings.LastIndex(path, ":"); i > 0 {
				if _, serr := os.Stat(path[:i]); serr == nil {
					return usagef("%s: %s", path, errDatabases)
				}
			}
		}
		return usageError{err}
	}
	if bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
		return usagef("%s: %s", path, errDatabases)
	}
	if !analysis.IsBenchFile(bytes.NewReader(data)) {
		return usagef("%s:1: not go test -bench output (no line starts with \"Benchmark\" or \"goos:\")", path)
	}
	return nil
}
