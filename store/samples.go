package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/latlab/latlab/record"
)

// errorClass maps samples.error back to its class.
var errorClass = func() map[string]record.ErrorClass {
	m := map[string]record.ErrorClass{}
	for _, c := range record.ErrorClasses() {
		m[c.String()] = c
	}
	return m
}()

// Samples calls fn with each raw sample of a run, in intended-send order,
// without holding them all in memory. An error from fn stops the walk and
// is returned.
func (db *DB) Samples(ctx context.Context, runID int64, fn func(record.Raw) error) error {
	op := fmt.Sprintf("reading samples of run %d from", runID)
	rows, err := db.r.QueryContext(ctx, `SELECT intended_ns, sent_ns, done_ns, code, bytes_in,
		bytes_out, error, step FROM samples WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return wrap(db.path, op, err)
	}
	defer discard(rows)
	for rows.Next() {
		var (
			intended, sent, done int64
			code, bytesOut, step int64
			s                    record.Raw
			class                sql.NullString
		)
		if err := rows.Scan(&intended, &sent, &done, &code, &s.BytesIn, &bytesOut, &class, &step); err != nil {
			return wrap(db.path, op, err)
		}
		s.Intended, s.Sent, s.Done = time.Duration(intended), time.Duration(sent), time.Duration(done)
		s.Code, s.BytesOut, s.Step = uint16(code), int32(bytesOut), uint8(step)
		if class.Valid {
			c, ok := errorClass[class.String]
			if !ok {
				c = record.Other
			}
			s.Error = c
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return wrap(db.path, op, rows.Err())
}

// Timings calls fn with the service time (completion − actual send) and
// the lag (actual send − intended send) of each raw sample of a run, in
// intended-send order, without holding them all in memory: Samples
// narrowed to the numbers plots and trend fits read. Their sum is the
// latency. SQLite computes them and hands over two columns a row instead
// of eight, which makes the walk several times faster. An error from fn
// stops the walk and is returned.
func (db *DB) Timings(ctx context.Context, runID int64, fn func(service, lag time.Duration) error) error {
	op := fmt.Sprintf("reading sample timings of run %d from", runID)
	rows, err := db.r.QueryContext(ctx, `SELECT done_ns - sent_ns, sent_ns - intended_ns
		FROM samples WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return wrap(db.path, op, err)
	}
	defer discard(rows)
	// Scanned as the driver's own values: Scan into an *int64 converts
	// through reflection, which makes a walk of two columns half as slow
	// again as one; into an *any it only copies. Declared once, since
	// Scan's pointers make them escape: a pair a row would be two
	// allocations a row.
	var service, lag any
	for rows.Next() {
		if err := rows.Scan(&service, &lag); err != nil {
			return wrap(db.path, op, err)
		}
		st, ok1 := service.(int64)
		lg, ok2 := lag.(int64)
		if !ok1 || !ok2 {
			return wrap(db.path, op, fmt.Errorf("service time %v (%T) and lag %v (%T): want integers", service, service, lag, lag))
		}
		if err := fn(time.Duration(st), time.Duration(lg)); err != nil {
			return err
		}
	}
	return wrap(db.path, op, rows.Err())
}
