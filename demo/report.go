package demo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// reports are the two experiments as the reports analyse them.
type reports struct {
	sweep, ramp *report.Experiment
}

// writeReports writes the HTML report of each experiment of out into its
// folder, as "latlab report FILE.db -o FILE.html" does: the demo
// experiment's valid runs, and the ramp's run whatever its flags (it is
// meant to saturate the chain, so it is always flagged).
func writeReports(ctx context.Context, db *store.DB, out *Outcome) (reports, error) {
	var rs reports
	var err error
	out.Report = filepath.Join(out.Dir, ReportFile)
	if rs.sweep, err = writeReport(ctx, db, out.Sweep.Experiment.ID, report.ExperimentOptions{}, out.Report); err != nil {
		return rs, err
	}
	out.RampReport = filepath.Join(out.Dir, RampReportFile)
	if rs.ramp, err = writeReport(ctx, db, out.Ramp.Experiment.ID, report.ExperimentOptions{IncludeFlagged: true}, out.RampReport); err != nil {
		return rs, err
	}
	return rs, nil
}

// writeReport writes experiment id's HTML report to path and returns the
// report's analysis.
func writeReport(ctx context.Context, db *store.DB, id int64, opt report.ExperimentOptions, path string) (*report.Experiment, error) {
	exp, err := analysis.Load(ctx, db, id)
	if err != nil {
		return nil, err
	}
	r, err := report.NewExperiment(exp, opt)
	if err != nil {
		return nil, err
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
