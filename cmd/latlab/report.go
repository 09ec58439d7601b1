package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// reportFlags holds the flags of latlab report.
type reportFlags struct {
	experiment     string
	baseline       string
	format         string
	output         string
	table          string
	slo            string
	sloStrict      bool
	includeFlagged bool
	unpaired       bool
	level          string
	samples        int
}

// reportLong is latlab report's help.
const reportLong = `report analyses one experiment of a results database, the latest unless
--experiment names another (by id, or by name for the latest of that
name), and writes:

  - a summary table per variant × level: p50 p90 p95 p99 p99.9 max of the
    latency from each request's intended send, each the median over the
    valid runs of the run's percentile with its 95% CI [lo, hi] (from 6
    runs up), the achieved rate, the error ratio, the runs counted and
    left out, and the validity flags raised, with a reason for each;
  - the overhead of every variant against the baseline (--baseline, else
    the spec's, else its first variant) at each level and at p50, p90, p99
    and p99.9: the Hodges–Lehmann shift with its 95% CI, and the
    Mann-Whitney p-value Holm-adjusted within each quantile (the p50 rows
    are one family, the p99 rows another); paired by repetition ("N
    pairs": the centre of the runs' differences, signed-rank CI and p)
    where the plan interleaved them and the pairs suffice;
  - with --slo, each variant's knee (the highest level meeting the SLO)
    and the rows that break it;
  - for each variant whose spec gives expect: (such as p50: 30ms), the
    expected against the measured value with its CI, and whether the
    expectation is within it, above or below;
  - a summary of the probes per variant × level: each windowed quantile
    of the scraped histograms (median over the runs, and max), the
    targets' and latlab's CPU and memory;
  - when the load was sent by several generators (shards), each shard of
    every variant's representative run at the highest level all ran:
    what it sent, its achieved rate, p50 and p99, its clock's offset from
    the coordinator's and its start, with the spread of the starts (the
    JSON lists the shards of every sharded run);
  - warnings: stored data missing or inconsistent (runs whose histograms
    are gone or disagree with their request counts, planned runs without
    a row), named run by run, first; too few runs or samples, differences
    below the measurement floor.

Flagged runs are left out of every number unless --include-flagged.
Overheads pair a variant's run with the baseline's of the same repetition
where enough runs pair; --unpaired compares all runs unpaired instead, the
interval a design without pairs would give.

--format text (the default), json, csv or html; -o FILE writes to a file
and infers the format from its extension (.txt, .json, .csv, .html).

The HTML report is one self-contained file (no script, nothing fetched):
the tables above, then plots drawn as inline SVG in a colour-blind-safe
palette: latency (p50, p99) against the load per variant with CI bands,
the overhead against the load with its CI band, the error ratio; at one
level in detail (--level, default the highest every variant ran) the
variants' latency by percentile (HdrHistogram's axis) and histogram, one
run per variant over time with warm-up shaded and throughput and requests
in flight beneath, service time against request number with the fitted
trend and the generator's lag apart, the trend of every run, probe series
(filter latency, target CPU against its budget), the per-hop breakdown
when traces were taken and the top functions of pprof profiles. The JSON keys are
a contract (times in seconds, ratios from 0 to 1, null where a number does
not exist). CSV has one row per variant × level × percentile; --table
overhead writes the overhead table instead.

--slo 'p99<50ms,errors<1%' is a gate for CI pipelines: limits on p50, p90,
p95, p99, p99.9 or max and on the error percentage. When a variant at a
level breaks one, report prints the rows that break it and exits 1. A
limit counts as broken only when the 95% CI of the median lies wholly past
it (with fewer than 6 runs, when every run is past it); --slo-strict judges
the median itself. A level with no runs counted, or a percentile n/a in
every run, breaks it too. Without --slo the SLO is the spec's slo: field,
when it has one; --slo '' judges nothing.

A missing file, one that is not a latlab database, an unknown experiment
or baseline, or bad flags exit with code 2.`

// reportExample are latlab report's examples.
const reportExample = `  # the latest experiment, on the terminal
  latlab report results.db

  # another experiment, compared with the variant "plain", as JSON
  latlab report results.db --experiment filter-overhead --baseline plain -o report.json

  # one HTML page with every plot, drawing 1000/s in detail
  latlab report results.db -o report.html --level 1000/s

  # the overhead table as CSV, for a spreadsheet
  latlab report results.db --format csv --table overhead

  # fail a CI job when p99 is past 50 ms or errors past 1% anywhere
  latlab report results.db --slo 'p99<50ms,errors<1%'`

func newReport(stdout, stderr io.Writer) *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:               "report FILE.db",
		Short:             "Report an experiment: percentiles with CIs, overheads, SLO gate",
		Long:              reportLong,
		Example:           reportExample,
		Args:              oneArg("results database"),
		ValidArgsFunction: completeDB,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd.Context(), args[0], cmd.Flags().Changed("format"), cmd.Flags().Changed("slo"), stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.experiment, "experiment", "", "the experiment to report, by id or name (default the latest)")
	fl.StringVar(&f.baseline, "baseline", "", "the variant others are compared with (default the spec's)")
	fl.StringVar(&f.format, "format", "text", "output: text, json, csv or html (default from -o's extension)")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVar(&f.table, "table", "summary", "with csv: summary or overhead")
	fl.StringVar(&f.slo, "slo", "", "exit 1 when broken, such as 'p99<50ms,errors<1%' (default the spec's slo:; '' judges nothing)")
	fl.BoolVar(&f.sloStrict, "slo-strict", false, "judge the SLO on the median, not the CI's lower bound")
	fl.BoolVar(&f.includeFlagged, "include-flagged", false, "count flagged and unfinished runs too")
	fl.BoolVar(&f.unpaired, "unpaired", false, "compare with the baseline unpaired, even where runs pair by repetition")
	fl.StringVar(&f.level, "level", "", "with html: the level drawn in detail, such as 100/s, 100 or c=8 (default the highest all variants ran)")
	fl.IntVar(&f.samples, "samples", 2000, "with html: raw requests drawn per run against request number")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "csv", "html"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("table", cobra.FixedCompletions([]string{"summary", "overhead"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (f *reportFlags) run(ctx context.Context, path string, formatSet, sloSet bool, stdout, stderr io.Writer) error {
	format, err := f.resolveFormat(formatSet)
	if err != nil {
		return err
	}
	slo, err := analysis.ParseSLO(f.slo)
	if err != nil {
		return usagef("--slo: %v", err)
	}
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return usageError{err}
	}
	defer db.Close()
	r, slo, err := f.load(ctx, db, path, slo, sloSet)
	if err != nil {
		return err
	}
	// The HTML report reads the shards with the rest of its detail.
	if format == "text" || format == "json" {
		if err := r.LoadShards(ctx, db); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	switch {
	case format == "html":
		err = f.writeHTML(ctx, db, r, &out)
	case format == "json":
		err = r.WriteJSON(&out)
	case format == "csv" && f.table == "overhead":
		err = r.WriteOverheadCSV(&out)
	case format == "csv":
		err = r.WriteCSV(&out)
	default:
		err = r.WriteText(&out)
	}
	if err != nil {
		return err
	}
	// Damaged rows are named in the report's warnings, and here, where
	// they are seen whatever the format and wherever the report goes.
	for _, d := range r.Damaged {
		fmt.Fprintf(stderr, "latlab: warning: %s: %s: left out\n", textsafe.Escape(path), textsafe.Escape(d.Error()))
	}
	if f.output == "" {
		_, err = stdout.Write(out.Bytes())
	} else if err = os.WriteFile(f.output, out.Bytes(), 0o644); err != nil {
		err = fmt.Errorf("writing the report: %w", err)
	}
	if err != nil || r.Verdict.Met() {
		return err
	}
	if format != "text" || f.output != "" { // else the report on stdout shows them
		fmt.Fprintf(stderr, "SLO %s broken:\n", slo)
		_ = r.WriteViolations(stderr)
	}
	return r.Verdict.Err()
}

// load loads the experiment --experiment picks from db and lays
// its report out, judged against slo (the stored spec's when --slo was
// not given), with the flagged runs' note and the probes' summary.
func (f *reportFlags) load(ctx context.Context, db *store.DB, path string, slo analysis.SLO, sloSet bool) (*report.Experiment, analysis.SLO, error) {
	id, err := f.pick(ctx, db, path)
	if err != nil {
		return nil, slo, err
	}
	exp, err := analysis.Load(ctx, db, id)
	if err != nil {
		return nil, slo, err
	}
	if !sloSet {
		if slo, err = storedSLO(path, exp); err != nil {
			return nil, slo, err
		}
	}
	if f.sloStrict && slo.IsZero() {
		return nil, slo, usagef("--slo-strict: there is no SLO to judge; give one with --slo or the spec's slo:")
	}
	r, err := report.NewExperiment(exp, report.ExperimentOptions{Baseline: f.baseline, SLO: slo,
		Strict: f.sloStrict, IncludeFlagged: f.includeFlagged, Unpaired: f.unpaired})
	if err != nil {
		return nil, slo, usagef("--baseline: %v", err)
	}
	if err := r.WarnPending(path); err != nil {
		return nil, slo, err
	}
	// Flagged runs, and how busy the machine was while they ran, come
	// first: they say how far the rest can be trusted.
	note, err := r.FlaggedNote(ctx, db, path, "")
	if err != nil {
		return nil, slo, err
	}
	if note != "" {
		r.Notes = append(r.Notes, note)
	}
	// Every format: what the probes failed to measure is noted first.
	if err := r.LoadProbes(ctx, db); err != nil {
		return nil, slo, err
	}
	return r, slo, nil
}

// resolveFormat checks --format, --table and -o against each other and
// returns the format to write.
func (f *reportFlags) resolveFormat(formatSet bool) (string, error) {
	format := f.format
	if f.output != "" {
		var inferred string
		switch ext := strings.ToLower(filepath.Ext(f.output)); ext {
		case ".txt":
			inferred = "text"
		case ".json", ".csv":
			inferred = ext[1:]
		case ".html", ".htm":
			inferred = "html"
		default:
			if !formatSet {
				return "", usagef("-o %s: cannot tell the format from the extension; use .txt, .json, .csv or .html, or give --format", f.output)
			}
		}
		if formatSet && inferred != "" && inferred != format {
			return "", usagef("--format %s disagrees with -o %s", format, f.output)
		}
		if inferred != "" {
			format = inferred
		}
	}
	switch format {
	case "text", "json", "csv", "html":
	default:
		return "", usagef("--format: want text, json, csv or html, got %q", format)
	}
	switch {
	case f.level != "" && format != "html":
		return "", usagef("--level chooses what the HTML report draws in detail; give -o FILE.html or --format html")
	case f.samples < 1:
		return "", usagef("--samples: want a count of 1 or more, got %d", f.samples)
	}
	switch {
	case f.table != "summary" && f.table != "overhead":
		return "", usagef("--table: want summary or overhead, got %q", f.table)
	case f.table == "overhead" && format != "csv":
		return "", usagef("--table overhead is a CSV form; give --format csv")
	}
	return format, nil
}

// pick returns the id of the experiment to report: --experiment as an id,
// else the latest of that name, else the latest of all.
func (f *reportFlags) pick(ctx context.Context, db *store.DB, path string) (int64, error) {
	exps, err := db.Experiments(ctx)
	if err != nil {
		return 0, err
	}
	if len(exps) == 0 {
		return 0, usagef("%s holds no experiments", path)
	}
	if f.experiment == "" {
		return exps[len(exps)-1].ID, nil
	}
	if id, err := strconv.ParseInt(f.experiment, 10, 64); err == nil {
		for _, e := range exps {
			if e.ID == id {
				return id, nil
			}
		}
	}
	for i := len(exps) - 1; i >= 0; i-- {
		if exps[i].Name == f.experiment {
			return exps[i].ID, nil
		}
	}
	var have []string
	for _, e := range exps {
		have = append(have, fmt.Sprintf("%d %s", e.ID, textsafe.Escape(e.Name)))
	}
	return 0, usagef("--experiment %s: %s has no such experiment (it has %s)", f.experiment, path, strings.Join(have, ", "))
}

// writeHTML loads what the HTML report draws beyond the aggregates and
// writes the page.
func (f *reportFlags) writeHTML(ctx context.Context, db *store.DB, r *report.Experiment, w io.Writer) error {
	opt := report.HTMLOptions{SamplePoints: f.samples}
	if f.level != "" {
		l, err := r.FindLevel(f.level)
		if err != nil {
			return usagef("--level: %v", err)
		}
		opt.Level = &l
	}
	d, err := report.LoadDetail(ctx, db, r, opt)
	if err != nil {
		return err
	}
	return r.WriteHTML(w, d)
}
