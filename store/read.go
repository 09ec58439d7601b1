package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/latlab/latlab/record"
)

// A Run is a stored run: what the plan knew of it and the summaries of what
// it measured. Its histograms and samples are read separately.
type Run struct {
	RunInfo
	ID             int64
	ExperimentID   int64
	Mode           string          // open, closed, ramp or sequential; "" without a result
	Origin         time.Time       // time zero of the run's offsets: the measurement's start
	Interval       time.Duration   // length of one interval; 0 without a result
	Samples        int64           // raw samples stored
	SamplesDropped int64           // requests past the raw-sample cap
	Summary        *record.Summary // the measurement; nil without a result
	Warmup         *record.Summary // the warm-up; nil without one
}

const runColumns = `id, experiment_id, variant, rate, concurrency, rep, position, mode, status,
	started_at, ended_at, origin_unix_ns, interval_ns, samples, samples_dropped, flags, summary,
	warmup, error`

// Runs returns the runs of experiment expID in plan order.
func (db *DB) Runs(ctx context.Context, expID int64) ([]Run, error) {
	op := fmt.Sprintf("reading runs of experiment %d from", expID)
	rows, err := db.r.QueryContext(ctx, `SELECT `+runColumns+` FROM runs
		WHERE experiment_id = ? ORDER BY position, id`, expID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, wrap(db.path, op, err)
		}
		out = append(out, r)
	}
	return out, wrap(db.path, op, rows.Err())
}

// Run returns the run with the given ID, or ErrNotFound.
func (db *DB) Run(ctx context.Context, runID int64) (Run, error) {
	r, err := scanRun(db.r.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, runID))
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	return r, wrap(db.path, "reading", err)
}

func scanRun(s scanner) (Run, error) {
	var (
		r                      Run
		started, ended, flags  string
		origin, interval       int64
		summary, warmup, error sql.NullString
	)
	err := s.Scan(&r.ID, &r.ExperimentID, &r.Variant, &r.Rate, &r.Concurrency, &r.Rep, &r.Position,
		&r.Mode, &r.Status, &started, &ended, &origin, &interval, &r.Samples, &r.SamplesDropped,
		&flags, &summary, &warmup, &error)
	if err != nil {
		return r, err
	}
	r.Origin, r.Interval, r.Error = time.Unix(0, origin).UTC(), time.Duration(interval), error.String
	if r.StartedAt, err = parseTime(started); err != nil {
		return r, fmt.Errorf("run %d: started_at: %w", r.ID, err)
	}
	if r.EndedAt, err = parseTime(ended); err != nil {
		return r, fmt.Errorf("run %d: ended_at: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(flags), &r.Flags); err != nil {
		return r, fmt.Errorf("run %d: flags: %w", r.ID, err)
	}
	for _, s := range []struct {
		col string
		src sql.NullString
		dst **record.Summary
	}{{"summary", summary, &r.Summary}, {"warmup", warmup, &r.Warmup}} {
		if !s.src.Valid {
			continue
		}
		*s.dst = new(record.Summary)
		if err := json.Unmarshal([]byte(s.src.String), *s.dst); err != nil {
			return r, fmt.Errorf("run %d: %s: %w", r.ID, s.col, err)
		}
	}
	return r, nil
}

// Intervals returns a run's series for one phase, its histograms kept as
// stored and decoded when read (see record.Kept). Offsets count from the run's origin, so warm-up's are negative.
func (db *DB) Intervals(ctx context.Context, runID int64, phase Phase) ([]record.Interval, error) {
	op := fmt.Sprintf("reading %s intervals of run %d from", phase, runID)
	rows, err := db.r.QueryContext(ctx, `SELECT start_ns, end_ns, sent, completed, errors,
		unsuccessful, in_flight_mean, in_flight_max, latency_hdr, service_hdr FROM intervals
		WHERE run_id = ? AND phase = ? ORDER BY idx`, runID, string(phase))
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []record.Interval
	var lat, svc []byte
	for rows.Next() {
		var in record.Interval
		var start, end int64
		if err := rows.Scan(&start, &end, &in.Sent, &in.Completed, &in.Errors, &in.Unsuccessful,
			&in.InFlightMean, &in.InFlightMax, &lat, &svc); err != nil {
			return nil, wrap(db.path, op, err)
		}
		in.Start, in.End = time.Duration(start), time.Duration(end)
		// Kept as stored: each is decoded when it is read.
		in.Latency, in.Service = record.KeptEncoding(lat), record.KeptEncoding(svc)
		out = append(out, in)
	}
	return out, wrap(db.path, op, rows.Err())
}

// Totals are a phase's whole-run histograms. A kind the run did not record
// is nil.
type Totals struct {
	Latency *hdr.Histogram // completion − intended send
	Service *hdr.Histogram // completion − actual send
	Lag     *hdr.Histogram // actual send − intended send
	Connect *hdr.Histogram // dial time of new connections
	TLS     *hdr.Histogram // TLS handshake time of new connections
}

// Totals returns a run's whole-phase histograms: what reports read
// percentiles from.
func (db *DB) Totals(ctx context.Context, runID int64, phase Phase) (Totals, error) {
	op := fmt.Sprintf("reading %s histograms of run %d from", phase, runID)
	var t Totals
	rows, err := db.r.QueryContext(ctx, `SELECT kind, hdr FROM histograms
		WHERE run_id = ? AND phase = ?`, runID, string(phase))
	if err != nil {
		return t, wrap(db.path, op, err)
	}
	defer discard(rows)
	dst := map[string]**hdr.Histogram{"latency": &t.Latency, "service": &t.Service,
		"lag": &t.Lag, "connect": &t.Connect, "tls": &t.TLS}
	var b []byte
	for rows.Next() {
		var kind string
		if err := rows.Scan(&kind, &b); err != nil {
			return t, wrap(db.path, op, err)
		}
		h, err := hdr.Decode(b)
		if err != nil {
			return t, wrap(db.path, op, fmt.Errorf("%s histogram: %w", kind, err))
		}
		if p, ok := dst[kind]; ok {
			*p = h
		}
	}
	return t, wrap(db.path, op, rows.Err())
}

// Steps returns a run's per-step totals, in scenario order; none when the
// run had a single step.
func (db *DB) Steps(ctx context.Context, runID int64) ([]record.StepStats, error) {
	op := fmt.Sprintf("reading steps of run %d from", runID)
	rows, err := db.r.QueryContext(ctx, `SELECT name, requests, errors, unsuccessful, status_codes,
		error_counts, latency_hdr, service_hdr FROM steps WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []record.StepStats
	for rows.Next() {
		var s record.StepStats
		var codes, errs string
		var lat, svc []byte
		if err := rows.Scan(&s.Name, &s.Requests, &s.ErrorsTotal, &s.Unsuccessful, &codes, &errs,
			&lat, &svc); err != nil {
			return nil, wrap(db.path, op, err)
		}
		err := errors.Join(json.Unmarshal([]byte(codes), &s.Codes), json.Unmarshal([]byte(errs), &s.Errors))
		if err == nil {
			s.Latency, err = hdr.Decode(lat)
		}
		if err == nil {
			s.Service, err = hdr.Decode(svc)
		}
		if err != nil {
			return nil, wrap(db.path, op, fmt.Errorf("step %q: %w", s.Name, err))
		}
		out = append(out, s)
	}
	return out, wrap(db.path, op, rows.Err())
}

// origin returns the run's time zero, or ErrNotFound.
func (db *DB) origin(ctx context.Context, runID int64) (time.Time, error) {
	var ns int64
	err := db.r.QueryRowContext(ctx, `SELECT origin_unix_ns FROM runs WHERE id = ?`, runID).Scan(&ns)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	return time.Unix(0, ns).UTC(), err
}
