package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// A ProbePoint is one value of a side measurement's time series, such as
// a target's CPU or a filter's p99 scraped from its metrics.
type ProbePoint struct {
	Probe  string            // the probe that took it: metrics, prometheus, process, traces, ...
	Series string            // what it measures, unit in the name: cpu_percent, rss_bytes, ...
	Labels map[string]string // tell series of the same name apart; nil for none
	Time   time.Time
	Value  float64
}

// A Profile is a pprof profile of a target taken during a run.
type Profile struct {
	Target   string        // the profiled process: a graph node's name or a URL
	Kind     string        // cpu or heap
	TakenAt  time.Time     // the profile was requested
	Duration time.Duration // a CPU profile's span; 0 for a heap profile
	Data     []byte        // the profile as served: gzipped pprof protobuf
	Unit     string        // unit of Top's Flat and Cum: nanoseconds, bytes
	Top      []ProfileFunc // the costliest functions, largest Flat first
}

// A ProfileFunc is one function's share of a profile.
type ProfileFunc struct {
	Function string `json:"function"`
	Flat     int64  `json:"flat"` // in the function itself
	Cum      int64  `json:"cum"`  // in it and what it calls
}

// probeRows is how probe points are written: many to an INSERT.
var probeRows = batchInsert{
	head: `INSERT INTO probes (run_id, probe, series, labels, t_ns, value) VALUES `,
	cols: 5,
	what: "probe points",
}

// insertProbes writes points in batches of rowBatch rows.
func insertProbes(ctx context.Context, tx *sql.Tx, runID int64, origin time.Time, points []ProbePoint) error {
	return probeRows.insert(ctx, tx, runID, len(points), func(args []any, off, n int) ([]any, error) {
		for i := off; i < off+n; i++ {
			p := &points[i]
			labels, err := json.Marshal(nonNil(p.Labels))
			if err != nil {
				return nil, fmt.Errorf("probe point %d: %w", i, err)
			}
			args = append(args, p.Probe, p.Series, string(labels), int64(p.Time.Sub(origin)), p.Value)
		}
		return args, nil
	})
}

func insertProfiles(ctx context.Context, tx *sql.Tx, runID int64, profiles []Profile) error {
	for i, p := range profiles {
		top := p.Top
		if top == nil {
			top = []ProfileFunc{}
		}
		topJSON, err := json.Marshal(top)
		if err != nil {
			return fmt.Errorf("profile %d: %w", i, err)
		}
		data := p.Data
		if data == nil {
			data = []byte{}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO profiles (run_id, target, kind, taken_at,
			duration_seconds, data, unit, top) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			runID, p.Target, p.Kind, formatTime(p.TakenAt), p.Duration.Seconds(), data, p.Unit,
			string(topJSON)); err != nil {
			return fmt.Errorf("profile %d (%s %s): %w", i, p.Kind, p.Target, err)
		}
	}
	return nil
}

// Probes returns the probe series of a run, ordered by probe, series and
// time. A point whose row does not decode is left out and named in a
// *Damaged error, returned with the rest.
func (db *DB) Probes(ctx context.Context, runID int64) ([]ProbePoint, error) {
	op := fmt.Sprintf("reading probes of run %d from", runID)
	origin, err := db.origin(ctx, runID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT probe, series, labels, t_ns, value FROM probes
		WHERE run_id = ? ORDER BY probe, series, t_ns`, runID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []ProbePoint
	damaged := &Damaged{Path: db.path}
	for rows.Next() {
		var p ProbePoint
		var labels string
		var t int64
		if err := rows.Scan(&p.Probe, &p.Series, &labels, &t, &p.Value); err != nil {
			return nil, wrap(db.path, op, err)
		}
		if labels != "{}" {
			if err := json.Unmarshal([]byte(labels), &p.Labels); err != nil {
				damaged.add(DamagedRow{Table: "probes", Row: fmt.Sprintf("run %d, %s %s at %s", runID, p.Probe, p.Series, time.Duration(t)),
					RunID: runID, Err: fmt.Errorf("labels: %w", err)})
				continue
			}
		}
		p.Time = origin.Add(time.Duration(t))
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(db.path, op, err)
	}
	return out, damaged.err()
}

// Profiles returns the profiles taken during a run, in the order written.
func (db *DB) Profiles(ctx context.Context, runID int64) ([]Profile, error) {
	op := fmt.Sprintf("reading profiles of run %d from", runID)
	rows, err := db.r.QueryContext(ctx, `SELECT target, kind, taken_at, duration_seconds, data,
		unit, top FROM profiles WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []Profile
	for rows.Next() {
		var p Profile
		var taken, top string
		var secs float64
		if err := rows.Scan(&p.Target, &p.Kind, &taken, &secs, &p.Data, &p.Unit, &top); err != nil {
			return nil, wrap(db.path, op, err)
		}
		p.Duration = time.Duration(math.Round(secs * float64(time.Second)))
		if p.TakenAt, err = parseTime(taken); err != nil {
			return nil, wrap(db.path, op, fmt.Errorf("taken_at: %w", err))
		}
		if err := json.Unmarshal([]byte(top), &p.Top); err != nil {
			return nil, wrap(db.path, op, fmt.Errorf("top: %w", err))
		}
		out = append(out, p)
	}
	return out, wrap(db.path, op, rows.Err())
}
