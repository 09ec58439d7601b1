package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/latlab/latlab/record"
)

// A Shard is one of the generators that sent a sharded run's load
// together, and what it measured: the run's own result is the shards'
// merged exactly, and this keeps each one's, so that a report can set
// shard against shard.
type Shard struct {
	Index       int
	Name        string        // what ran it: a process, a pod
	Node        string        // where: a node's name; "" for the coordinator's machine
	Offset      time.Duration // its clock less the coordinator's
	OffsetBound time.Duration // the offset is within ±OffsetBound
	// Start is when its measured load started, on the coordinator's
	// clock; zero without a result.
	Start  time.Time
	Error  string         // why it was lost; "" otherwise
	Result *record.Result // its measurement, without raw samples (the run's merged ones hold them); nil without one
}

// shardsTable is format 3: the shards of sharded runs.
const shardsTable = `CREATE TABLE shards (
    run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx             INTEGER NOT NULL, -- the shard's index, from 0
    name            TEXT NOT NULL,    -- what ran it: a process, a pod
    node            TEXT NOT NULL,    -- where: a node's name; '' for the coordinator's machine
    offset_ns       INTEGER NOT NULL, -- its clock less the coordinator's
    offset_bound_ns INTEGER NOT NULL, -- the offset is within ± this
    start_ns        INTEGER,          -- its measured load's start on the coordinator's clock,
                                      -- from runs.origin_unix_ns; NULL without a result
    error           TEXT NOT NULL,    -- why it was lost; '' otherwise
    result          BLOB,             -- its measurement (record.EncodeResult, no raw samples);
                                      -- NULL without one
    PRIMARY KEY (run_id, idx)
)`

// insertShards writes a run's shards.
func insertShards(ctx context.Context, tx *sql.Tx, runID int64, origin time.Time, shards []Shard) error {
	for _, s := range shards {
		var start sql.NullInt64
		if !s.Start.IsZero() {
			start = sql.NullInt64{Int64: int64(s.Start.Sub(origin)), Valid: true}
		}
		var blob []byte
		if s.Result != nil {
			r := *s.Result
			r.Raw, r.RawDropped = nil, 0
			var b bytes.Buffer
			if err := record.EncodeResult(&b, &r); err != nil {
				return fmt.Errorf("shard %d: %w", s.Index, err)
			}
			blob = b.Bytes()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO shards (run_id, idx, name, node, offset_ns, offset_bound_ns,
			start_ns, error, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			runID, s.Index, s.Name, s.Node, int64(s.Offset), int64(s.OffsetBound), start, s.Error, blob); err != nil {
			return fmt.Errorf("shard %d: %w", s.Index, err)
		}
	}
	return nil
}

// Shards returns the shards of a sharded run by index; none for a run
// one generator sent. A shard whose result does not decode is left out
// and named in a *Damaged error, returned with the rest.
func (db *DB) Shards(ctx context.Context, runID int64) ([]Shard, error) {
	op := fmt.Sprintf("reading the shards of run %d from", runID)
	if v, err := version(ctx, db.r); err != nil || v < 3 {
		return nil, wrap(db.path, op, err) // a file older than shards has none
	}
	origin, err := db.origin(ctx, runID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT idx, name, node, offset_ns, offset_bound_ns, start_ns, error, result
		FROM shards WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []Shard
	damaged := &Damaged{Path: db.path}
	for rows.Next() {
		var s Shard
		var off, bound int64
		var start sql.NullInt64
		var blob []byte
		if err := rows.Scan(&s.Index, &s.Name, &s.Node, &off, &bound, &start, &s.Error, &blob); err != nil {
			return nil, wrap(db.path, op, err)
		}
		s.Offset, s.OffsetBound = time.Duration(off), time.Duration(bound)
		if start.Valid {
			s.Start = origin.Add(time.Duration(start.Int64))
		}
		if blob != nil {
			if s.Result, err = record.DecodeResult(bytes.NewReader(blob)); err != nil {
				damaged.add(DamagedRow{Table: "shards", Row: fmt.Sprintf("run %d, shard %d", runID, s.Index), RunID: runID,
					Err: fmt.Errorf("result: %w", err)})
				continue
			}
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(db.path, op, err)
	}
	return out, damaged.err()
}
