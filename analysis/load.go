package analysis

import (
	"context"
	"fmt"

	"github.com/latlab/latlab/store"
)

// An Experiment is a stored experiment read for analysis: its runs with
// their percentiles, ready for Aggregate.
type Experiment struct {
	store.Experiment
	Runs     []Run    // in plan order; runs without a result are left out
	NoResult int      // runs that failed before measuring anything
	Warnings []string // per run: quantiles n/a or low-confidence
}

// Load reads experiment expID from db: every run with a result and the
// percentiles of its total latency and service-time histograms.
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
		if sr.Summary == nil {
			out.NoResult++
			continue
		}
		t, err := db.Totals(ctx, sr.ID, store.Measure)
		if err != nil {
			return nil, err
		}
		r := Run{
			ID:         sr.ID,
			Trial:      sr.Trial,
			Status:     sr.Status,
			Flags:      sr.Flags,
			Requests:   sr.Summary.Requests,
			Achieved:   sr.Summary.Rate,
			ErrorRatio: 1 - sr.Summary.SuccessRatio,
		}
		if sr.Summary.Requests == 0 {
			r.ErrorRatio = 0
		}
		var lat, svc Histogram
		if t.Latency != nil { // keep a nil pointer out of the interface
			lat = t.Latency
		}
		if t.Service != nil {
			svc = t.Service
		}
		r.RunPercentiles = ReadRun(lat, svc)
		for _, w := range r.Warnings {
			out.Warnings = append(out.Warnings, fmt.Sprintf("run %d (%s): %s", r.ID, r.Trial, w))
		}
		out.Runs = append(out.Runs, r)
	}
	return out, nil
}
