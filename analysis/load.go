package analysis

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/latlab/latlab/spec"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/store"
)

// An Experiment is a stored experiment read for analysis: its runs with
// their percentiles, ready for Aggregate.
type Experiment struct {
	store.Experiment
	Runs []Run // in plan order; runs without a result are left out
	// Unmeasured are the runs that failed before measuring anything, in
	// plan order: stored, but without a result or percentiles.
	Unmeasured []Run
	Warnings   []string // per run: quantiles n/a or low-confidence
	// Damaged are the rows of runs and histograms that do not decode:
	// their runs are read with Defects, or left out when the row does not
	// even say its trial.
	Damaged []store.DamagedRow
	// Design is what the stored spec planned (see spec.DesignOf).
	Design spec.Design
}

// Load reads experiment expID from db: every run with a result and the
// percentiles of its total latency and service-time histograms. A run
// whose histograms are missing, do not decode or disagree with the
// requests its result counts, or whose row does not decode, is read with
// its Defects and without percentiles; a row of runs that does not even
// say its trial is left out with a warning naming it. Its Design is read
// from the stored spec.
func Load(ctx context.Context, db *store.DB, expID int64) (*Experiment, error) {
	e, err := db.Experiment(ctx, expID)
	if err != nil {
		return nil, err
	}
	runs, err := db.Runs(ctx, expID)
	damaged, ok := store.DamagedRows(err)
	if !ok {
		return nil, err
	}
	out := &Experiment{Experiment: e, Damaged: damaged, Design: spec.DesignOf(e.Spec)}
	for _, d := range damaged {
		if d.Run != nil {
			runs = append(runs, *d.Run)
		}
	}
	slices.SortStableFunc(runs, func(a, b store.Run) int { return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.ID, b.ID)) })
	for _, sr := range runs {
		r := Run{ID: sr.ID, Trial: sr.Trial, Position: sr.Position, Status: sr.Status, Flags: sr.Flags}
		if d := damagedRun(damaged, sr.ID); d != nil {
			r.Defects = []string{fmt.Sprintf("table runs: %v", d.Err)}
			out.Runs = append(out.Runs, r)
			continue
		}
		if sr.Summary == nil {
			out.Unmeasured = append(out.Unmeasured, r)
			continue
		}
		t, err := db.Totals(ctx, sr.ID, store.Measure)
		bad, ok := store.DamagedRows(err)
		if !ok {
			return nil, err
		}
		for _, d := range bad {
			r.Defects = append(r.Defects, fmt.Sprintf("table histograms, %s: %v", d.Row, d.Err))
		}
		out.Damaged = append(out.Damaged, bad...)
		r.Requests, r.Achieved = sr.Summary.Requests, sr.Summary.Rate
		r.ErrorRatio = 1 - sr.Summary.SuccessRatio
		if sr.Summary.Requests == 0 {
			r.ErrorRatio = 0
		}
		if len(bad) == 0 {
			r.Defects = defects(t, r.Requests)
		}
		if len(r.Defects) > 0 {
			out.Runs = append(out.Runs, r)
			continue
		}
		r.RunPercentiles = ReadRun(t.Latency, t.Service)
		for _, w := range r.Warnings {
			out.Warnings = append(out.Warnings, fmt.Sprintf("run %d (%s): %s", r.ID, r.Trial, w))
		}
		out.Runs = append(out.Runs, r)
	}
	return out, nil
}

// damagedRun returns the damaged row of run id among rows, or nil.
func damagedRun(rows []store.DamagedRow, id int64) *store.DamagedRow {
	for i := range rows {
		if rows[i].Run != nil && rows[i].RunID == id {
			return &rows[i]
		}
	}
	return nil
}

// defects says what of a run's stored totals is missing, or disagrees
// with the requests its result counts: every completed request is
// recorded once in each histogram.
func defects(t store.Totals, requests int64) []string {
	var out []string
	for _, h := range []struct {
		name string
		h    *hdr.Histogram
	}{{"latency", t.Latency}, {"service-time", t.Service}} {
		switch {
		case h.h == nil:
			out = append(out, "no "+h.name+" histogram")
		case h.h.TotalCount() != requests:
			out = append(out, fmt.Sprintf("%s histogram holds %d requests, the run %d", h.name, h.h.TotalCount(), requests))
		}
	}
	return out
}
