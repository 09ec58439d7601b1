package demo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// reports are the two experiments as the reports analyse them, and what
// the demo experiment's report says first of what it cannot show.
type reports struct {
	sweep, ramp *report.Experiment
	notes       []string
}

// writeReports writes the HTML report of each experiment of out into its
// folder, as "latlab report FILE.db -o FILE.html" does: the demo
// experiment's valid runs, and the ramp's run whatever its flags (it is
// meant to saturate the chain, so it is always flagged). The demo
// experiment's report opens with what its design cannot show (designNote)
// and how many runs were flagged and left out, with how busy the machine
// was during them (report.Experiment.FlaggedNote). sweepFile is the spec sweep was read from.
func writeReports(ctx context.Context, db *store.DB, out *Outcome, sweep *spec.Spec, sweepFile string) (reports, error) {
	var rs reports
	var err error
	out.Report = filepath.Join(out.Dir, ReportFile)
	notes := func(r *report.Experiment) error {
		if n := designNote(sweep); n != "" {
			rs.notes = append(rs.notes, n)
		}
		n, err := r.FlaggedNote(ctx, db, out.DB, sweepFile)
		if n != "" {
			rs.notes = append(rs.notes, n)
		}
		r.Notes = append(slices.Clone(rs.notes), r.Notes...)
		return err
	}
	if rs.sweep, err = writeReport(ctx, db, out.Sweep.Experiment.ID, report.ExperimentOptions{}, notes, out.Report); err != nil {
		return rs, err
	}
	out.RampReport = filepath.Join(out.Dir, RampReportFile)
	if rs.ramp, err = writeReport(ctx, db, out.Ramp.Experiment.ID, report.ExperimentOptions{IncludeFlagged: true}, nil, out.RampReport); err != nil {
		return rs, err
	}
	return rs, nil
}

// writeReport writes experiment id's HTML report to path and returns the
// report's analysis; notes, unless nil, adds to the report first.
func writeReport(ctx context.Context, db *store.DB, id int64, opt report.ExperimentOptions,
	notes func(*report.Experiment) error, path string) (*report.Experiment, error) {
	exp, err := analysis.Load(ctx, db, id)
	if err != nil {
		return nil, err
	}
	r, err := report.NewExperiment(exp, opt)
	if err != nil {
		return nil, err
	}
	if notes != nil {
		if err := notes(r); err != nil {
			return nil, err
		}
	}
	d, err := report.LoadDetail(ctx, db, r, report.HTMLOptions{})
	if err != nil {
		return nil, err
	}
	var page bytes.Buffer
	if err := r.WriteHTML(&page, d); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("writing the report: %w", err)
	}
	return r, nil
}
