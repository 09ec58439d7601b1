package main

import (
	"bytes"

	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/benchcmp"
)

// scaleFlags holds the flags of latlab scale.
type scaleFlags struct {
	unit   string
	format string
}

func newScale(stdout, _ io.Writer) *cobra.Command {
	var f scaleFlags
	cmd := &cobra.Command{
		Use:   "scale FILE",
		Short: "Fit how a metric grows with size and say whether it is linear",
		Long: `scale reads a size sweep and says how each metric grows with the size n.

FILE is go test -bench output whose sub-benchmark names carry the size as
their first numeric key=value (BenchmarkExport/conns=1000, /n=1000,
/size=1000), or CSV with a header whose first column is n and whose other
columns are values (n,value).

For each benchmark and unit (or value column) it fits, by weighted least
squares with weights 1/mean(n)^2 (benchmark noise is relative):

  linear     a + b*n
  nlogn      a + b*n*ln(n)
  quadratic  a + b*n + c*n^2
  log        a + b*ln(n)
  sqrt       a + b*sqrt(n)

and ranks them by AICc (AIC with the small-sample correction). It prints
the slope of the linear fit per unit of n with its 95% CI and R^2, and
ends each block with a verdict line:

  verdict: superlinear  nlogn beats linear by AICc >= 2, or quadratic does
                        with an n^2 coefficient whose 95% CI is above 0
  verdict: sublinear    log or sqrt beats linear by AICc >= 2, or a concave
                        quadratic does, or the linear slope's 95% CI
                        includes zero or lies below it (no growth)
  verdict: linear       otherwise

A file that cannot be parsed exits with code 2 and names the file and line.`,
		Example: `  # does memory grow linearly with connections?
  go test -run '^$' -bench 'Export/conns=' -benchmem -count 5 > sweep.txt
  latlab scale sweep.txt --unit B/op

  # any measurement against size
  printf 'n,rss_bytes\n1000,5.2e6\n2000,9.1e6\n4000,1.7e7\n8000,3.3e7\n' > rss.csv
  latlab scale rss.csv --format json`,
		Args: oneArg("file"),
		RunE: func(_ *cobra.Command, args []string) error {
			return f.run(args[0], stdout)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.unit, "unit", "", "fit only this unit or CSV column (B/op, allocs/op, sec/op, …)")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (f *scaleFlags) run(path string, stdout io.Writer) error {
	write := benchcmp.WriteScaleText
	switch f.format {
	case "text":
	case "json":
		write = benchcmp.WriteScaleJSON
	default:
		return usagef("--format %q: want text or json", f.format)
	}
	file, err := os.Open(path)
	if err != nil {
		return usageError{err}
	}
	defer file.Close()
	series, err := benchcmp.ParseScale(file, path)
	if err != nil {
		return usageError{err}
	}
	var fits []*benchcmp.ScaleFit
	var units []string
	for _, s := range series {
		units = append(units, s.Unit)
		if f.unit != "" && s.Unit != f.unit && !(f.unit == "ns/op" && s.Unit == "sec/op") {
			continue
		}
		fit, err := benchcmp.FitScale(s)
		if err != nil {
			return usageError{err}
		}
		fits = append(fits, fit)
	}
	if len(fits) == 0 {
		return usagef("%s: no unit %q; have %v", path, f.unit, units)
	}
	var b bytes.Buffer
	if err := write(&b, fits); err != nil {
		return err
	}
	_, err = stdout.Write(b.Bytes())
	return err
}
