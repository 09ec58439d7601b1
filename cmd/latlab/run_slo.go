package main

import (
	"context"
	"fmt"
	"io"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// runVerdict judges experiment id of db against slo as latlab report does
// and writes the verdict to w: each variant's knee and the rows that break
// it. broken names the SLO when a row breaks it (exit code 1); err is a
// failure to judge.
func runVerdict(ctx context.Context, db *store.DB, id int64, slo analysis.SLO, strict bool, w io.Writer) (broken, err error) {
	exp, err := analysis.Load(ctx, db, id)
	if err != nil {
		return nil, fmt.Errorf("judging the SLO: %w", err)
	}
	r, err := report.NewExperiment(exp, report.ExperimentOptions{SLO: slo, Strict: strict})
	if err != nil {
		return nil, fmt.Errorf("judging the SLO: %w", err)
	}
	if err := r.WriteSLO(w); err != nil {
		return nil, err
	}
	return r.Verdict.Err(), nil
}

// storedSLO returns the SLO of the spec that experiment exp of the
// database at path ran: its slo: field, or the zero SLO. latlab report
// judges it when --slo is not given. A bad one is a usage error naming
// the experiment, the spec's line and the field.
func storedSLO(path string, exp *analysis.Experiment) (analysis.SLO, error) {
	s, err := spec.SpecSLO(fmt.Sprintf("spec of experiment %d in %s", exp.ID, path), []byte(exp.Spec))
	if err != nil {
		return analysis.SLO{}, usagef("%w (give --slo to judge another SLO)", err)
	}
	return analysis.SLOOf(s), nil
}
