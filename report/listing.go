package report

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// A Listing is what latlab ls shows of a results database: its
// experiments, each with its runs. Its JSON form is ls --format json's,
// a public schema: fields are added, never renamed or removed.
type Listing struct {
	File        string             `json:"file"`
	Experiments []ListedExperiment `json:"experiments"`
}

// A ListedExperiment is one experiment as latlab ls shows it.
type ListedExperiment struct {
	ID            int64            `json:"id"`
	Name          string           `json:"name"`
	CreatedAt     time.Time        `json:"created_at"`
	SpecHash      string           `json:"spec_hash"`
	FormatVersion int              `json:"format_version"`
	RunsDone      int              `json:"runs_done"`
	RunsStored    int              `json:"runs_stored"`
	Provenance    store.Provenance `json:"provenance"`
	Runs          []ListedRun      `json:"runs"`
}

// A ListedRun is one run as latlab ls shows it.
type ListedRun struct {
	ID          int64        `json:"id"`
	Position    int          `json:"position"`
	Variant     string       `json:"variant"`
	Rate        float64      `json:"rate"` // requests/s; 0 in closed loop
	Concurrency int          `json:"concurrency"`
	Rep         int          `json:"rep"`
	Mode        string       `json:"mode,omitempty"`
	Status      store.Status `json:"status"`
	StartedAt   time.Time    `json:"started_at"`
	EndedAt     time.Time    `json:"ended_at"`
	Requests    int64        `json:"requests"`
	P50         *float64     `json:"p50_seconds"` // latency; null without enough samples
	P99         *float64     `json:"p99_seconds"`
	Samples     int64        `json:"samples"` // raw samples stored
	Flags       []store.Flag `json:"flags"`
	Error       string       `json:"error,omitempty"`
	// Damaged says what of the run's row does not decode: the run is
	// listed with what does.
	Damaged string `json:"damaged,omitempty"`
}

// ListExperiments reads the runs of exps from db, in plan order, a run
// whose row does not decode listed with what does and why.
func ListExperiments(ctx context.Context, db *store.DB, exps []store.Experiment) ([]ListedExperiment, error) {
	out := make([]ListedExperiment, 0, len(exps))
	for _, e := range exps {
		runs, err := db.Runs(ctx, e.ID)
		damaged, ok := store.DamagedRows(err)
		if !ok {
			return nil, err
		}
		why := map[int64]string{}
		for _, d := range damaged {
			r := store.Run{ID: d.RunID}
			if d.Run != nil {
				r = *d.Run
			}
			runs, why[r.ID] = append(runs, r), d.Error()
		}
		slices.SortStableFunc(runs, func(a, b store.Run) int { return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.ID, b.ID)) })
		le := ListedExperiment{ID: e.ID, Name: e.Name, CreatedAt: e.CreatedAt.UTC(), SpecHash: e.SpecHash,
			FormatVersion: e.FormatVersion, RunsStored: len(runs), Provenance: e.Provenance, Runs: []ListedRun{}}
		for _, r := range runs {
			if r.Status == store.Done {
				le.RunsDone++
			}
			lr := ListedRun{ID: r.ID, Position: r.Position, Variant: r.Variant, Rate: r.Rate,
				Concurrency: r.Concurrency, Rep: r.Rep, Mode: r.Mode, Status: r.Status,
				StartedAt: r.StartedAt.UTC(), EndedAt: r.EndedAt.UTC(), Samples: r.Samples,
				Flags: r.Flags, Error: r.Error, Damaged: why[r.ID]}
			if lr.Flags == nil {
				lr.Flags = []store.Flag{}
			}
			if s := r.Summary; s != nil {
				lr.Requests, lr.P50, lr.P99 = s.Requests, s.Latency.P50, s.Latency.P99
			}
			le.Runs = append(le.Runs, lr)
		}
		out = append(out, le)
	}
	return out, nil
}

// WriteJSON writes the listing as one indented JSON object.
func (l Listing) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(l)
}

// WriteText writes the listing as latlab ls does: a line per experiment
// and a table of its runs.
func (l Listing) WriteText(w io.Writer) error {
	exps := l.Experiments
	if len(exps) == 0 {
		_, err := fmt.Fprintf(w, "%s holds no experiments\n", textsafe.Escape(l.File))
		return err
	}
	tw := tabwriter.NewWriter(textsafe.NewWriter(w), 0, 0, 2, ' ', 0)
	for i, e := range exps {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "experiment %d  %s  created %s  spec %.12s  %d/%d runs done", e.ID, textsafe.Escape(e.Name),
			e.CreatedAt.Format("2006-01-02 15:04:05Z"), e.SpecHash, e.RunsDone, e.RunsStored)
		if p := e.Provenance; p.Host != "" || p.LatlabVersion != "" {
			fmt.Fprintf(tw, "  host %s  latlab %s", textsafe.OrDash(p.Host), textsafe.OrDash(p.LatlabVersion))
		}
		fmt.Fprintln(tw)
		if len(e.Runs) == 0 {
			fmt.Fprintln(tw, "  no runs yet")
			continue
		}
		fmt.Fprintln(tw, "  position\tvariant\trate\tconcurrency\trep\tstatus\trequests\tp50\tp99\tflags")
		for _, r := range e.Runs {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\t%s\n", r.Position, textsafe.Escape(r.Variant), lsRate(r),
				r.Concurrency, r.Rep, textsafe.Escape(string(r.Status)), r.Requests, lsSeconds(r.P50), lsSeconds(r.P99), lsFlagNames(r.Flags))
		}
		for _, r := range e.Runs {
			if r.Damaged != "" {
				fmt.Fprintf(tw, "  warning: run %d: damaged row: %s\n", r.ID, textsafe.Escape(r.Damaged))
			}
		}
	}
	return tw.Flush()
}

// lsRate is a run's rate as requests/s, or its closed-loop mode.
func lsRate(r ListedRun) string {
	switch {
	case r.Rate > 0:
		return units.ExactRate(r.Rate)
	case r.Mode == "sequential":
		return "sequential"
	}
	return "closed"
}

// lsSeconds formats a percentile in seconds, "-" for none.
func lsSeconds(s *float64) string {
	if s == nil {
		return "-"
	}
	return units.Seconds(*s)
}

func lsFlagNames(flags []store.Flag) string {
	if len(flags) == 0 {
		return "-"
	}
	names := make([]string, len(flags))
	for i, f := range flags {
		names[i] = textsafe.Escape(f.Name)
	}
	return strings.Join(names, ",")
}
