package analysis

import (
	"context"
	"fmt"

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
	// Design is what the stored spec planned. Load leaves it zero: the
	// experiment package, which parses specs, fills it.
	Design Design
}

// Load reads experiment expID from db: every run with a result and the
// percentiles of its total latency and service-time histograms. A run
// whose histograms are missing, or disagree with the requests its result
// counts, is read with its Defects and without percentiles.
func Load(ctx context.Context, db *store.DB, expID int64) (*Experiment, error) {
	e, err := db.Experiment(ctx, expID)
	if err != nil {
		return nil, err
	}
	runs, err := db.Runs(ctx, expID)
	if err != nil {
		return nil, err
	}
	out := &Experiment{Experiment: e}
	for _, sr := range runs {
		r := Run{ID: sr.ID, Trial: sr.Trial, Position: sr.Position, Status: sr.Status, Flags: sr.Flags}
		if sr.Summary == nil {
			out.Unmeasured = append(out.Unmeasured, r)
			continue
		}
		t, err := db.Totals(ctx, sr.ID, store.Measure)
		if err != nil {
			return nil, err
		}
		r.Requests, r.Achieved = sr.Summary.Requests, sr.Summary.Rate
		r.ErrorRatio = 1 - sr.Summary.SuccessRatio
		if sr.Summary.Requests == 0 {
			r.ErrorRatio = 0
		}
		if r.Defects = defects(t, r.Requests); len(r.Defects) > 0 {
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
