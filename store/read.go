package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
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

// Runs returns the runs of experiment expID in plan order. A row that does
// not decode is left out and named in a *Damaged error, returned with the
// runs that do.
func (db *DB) Runs(ctx context.Context, expID int64) ([]Run, error) {
	op := fmt.Sprintf("reading runs of experiment %d from", expID)
	rows, err := db.r.QueryContext(ctx, `SELECT `+runColumns+` FROM runs
		WHERE experiment_id = ? ORDER BY position, id`, expID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []Run
	damaged := &Damaged{Path: db.path}
	for rows.Next() {
		r, err := scanRun(rows)
		if d, ok := err.(*DamagedRow); ok {
			damaged.add(*d)
			continue
		}
		if err != nil {
			return nil, wrap(db.path, op, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(db.path, op, err)
	}
	return out, damaged.err()
}

// Run returns the run with the given ID, or ErrNotFound, or a *Damaged
// error when its row does not decode.
func (db *DB) Run(ctx context.Context, runID int64) (Run, error) {
	// Rows rather than a Row: a row that does not scan is read again,
	// leniently, to name it.
	rows, err := db.r.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, runID)
	if err != nil {
		return Run{}, wrap(db.path, "reading", err)
	}
	defer discard(rows)
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Run{}, wrap(db.path, "reading", err)
		}
		return Run{}, wrap(db.path, "reading", fmt.Errorf("run %d: %w", runID, ErrNotFound))
	}
	r, err := scanRun(rows)
	if d, ok := err.(*DamagedRow); ok {
		return r, &Damaged{Path: db.path, Rows: []DamagedRow{*d}}
	}
	return r, wrap(db.path, "reading", err)
}

// scanRun reads a row of runs. A row that does not decode is a
// *DamagedRow holding what of it could be read.
func scanRun(s scanner) (Run, error) {
	var (
		r                        Run
		started, ended, flags    string
		origin, interval         int64
		summary, warmup, errText sql.NullString
	)
	err := s.Scan(&r.ID, &r.ExperimentID, &r.Variant, &r.Rate, &r.Concurrency, &r.Rep, &r.Position,
		&r.Mode, &r.Status, &started, &ended, &origin, &interval, &r.Samples, &r.SamplesDropped,
		&flags, &summary, &warmup, &errText)
	if err != nil {
		return r, lenientRun(s, err)
	}
	damaged := func(err error) (Run, error) {
		partial := Run{RunInfo: RunInfo{Trial: r.Trial, Position: r.Position, Status: r.Status}, ID: r.ID, ExperimentID: r.ExperimentID, Mode: r.Mode}
		return r, &DamagedRow{Table: "runs", Row: fmt.Sprintf("run %d (%s)", r.ID, r.Trial), RunID: r.ID, Err: err, Run: &partial}
	}
	r.Origin, r.Interval, r.Error = time.Unix(0, origin).UTC(), time.Duration(interval), errText.String
	if r.StartedAt, err = parseTime(started); err != nil {
		return damaged(fmt.Errorf("started_at: %w", err))
	}
	if r.EndedAt, err = parseTime(ended); err != nil {
		return damaged(fmt.Errorf("ended_at: %w", err))
	}
	if err := json.Unmarshal([]byte(flags), &r.Flags); err != nil {
		return damaged(fmt.Errorf("flags: %w", err))
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
			return damaged(fmt.Errorf("%s: %w", s.col, err))
		}
	}
	return r, nil
}

// lenientRun reads a row of runs that did not scan, for a value of the
// wrong type, as what it can: a *DamagedRow with the run's trial when the
// columns that say it read, else with its ID and variant; err when even
// the row does not read.
func lenientRun(s scanner, err error) error {
	vals := make([]any, strings.Count(runColumns, ",")+1)
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if s.Scan(ptrs...) != nil {
		return err
	}
	num := func(v any) (float64, bool) {
		switch x := v.(type) {
		case int64:
			return float64(x), true
		case float64:
			return x, true
		}
		return 0, false
	}
	whole := func(v any) (int, bool) {
		x, ok := num(v)
		return int(x), ok && x == math.Trunc(x)
	}
	id, _ := vals[0].(int64)
	variant, _ := vals[2].(string)
	d := &DamagedRow{Table: "runs", Row: fmt.Sprintf("run %d (%s)", id, variant), RunID: id, Err: err}
	var r Run
	r.ID, r.Variant = id, variant
	var ok [5]bool
	r.Rate, ok[0] = num(vals[3])
	r.Concurrency, ok[1] = whole(vals[4])
	r.Rep, ok[2] = whole(vals[5])
	r.Position, ok[3] = whole(vals[6])
	var status string
	status, ok[4] = vals[8].(string)
	if ok == [5]bool{true, true, true, true, true} && variant != "" {
		r.ExperimentID, _ = vals[1].(int64)
		r.Mode, _ = vals[7].(string)
		r.Status = Status(status)
		d.Row, d.Run = fmt.Sprintf("run %d (%s)", id, r.Trial), &r
	}
	return d
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
// percentiles from. A histogram whose blob does not decode is left nil
// and named in a *Damaged error, returned with the rest.
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
	damaged := &Damaged{Path: db.path}
	for rows.Next() {
		var kind string
		if err := rows.Scan(&kind, &b); err != nil {
			return t, wrap(db.path, op, err)
		}
		h, err := hdr.Decode(b)
		if err != nil {
			damaged.add(DamagedRow{Table: "histograms", Row: fmt.Sprintf("run %d, %s %s", runID, phase, kind), RunID: runID,
				Err: fmt.Errorf("hdr: not an HdrHistogram: %w", err)})
			continue
		}
		if p, ok := dst[kind]; ok {
			*p = h
		}
	}
	if err := rows.Err(); err != nil {
		return t, wrap(db.path, op, err)
	}
	return t, damaged.err()
}

// Steps returns a run's per-step totals, in scenario order; none when the
// run had a single step. A step whose row does not decode is left out
// and named in a *Damaged error, returned with the rest.
func (db *DB) Steps(ctx context.Context, runID int64) ([]record.StepStats, error) {
	op := fmt.Sprintf("reading steps of run %d from", runID)
	rows, err := db.r.QueryContext(ctx, `SELECT name, requests, errors, unsuccessful, status_codes,
		error_counts, latency_hdr, service_hdr FROM steps WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []record.StepStats
	damaged := &Damaged{Path: db.path}
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
			damaged.add(DamagedRow{Table: "steps", Row: fmt.Sprintf("run %d, step %q", runID, s.Name), RunID: runID, Err: err})
			continue
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(db.path, op, err)
	}
	return out, damaged.err()
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
