package store

import (
	"context"
	"database/sql"

	"github.com/latlab/latlab/record"
)

// levelColumn is format version 2: each run's level as text (runs.level,
// the canonical text of record.Level, such as '100/s' or 'c=8'), filled in
// for the runs already stored, and a trial keyed by it rather than by a
// REAL rate. Format 1's UNIQUE (experiment_id, variant, rate, concurrency,
// rep) stays: a level is one (rate, concurrency) pair and back, so the two
// keys refuse the same rows.
func levelColumn(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `ALTER TABLE runs ADD COLUMN level TEXT NOT NULL DEFAULT ''`); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, rate, concurrency FROM runs`)
	if err != nil {
		return err
	}
	levels := map[int64]record.Level{}
	for rows.Next() {
		var id int64
		var l record.Level
		if err := rows.Scan(&id, &l.Rate, &l.Concurrency); err != nil {
			discard(rows)
			return err
		}
		levels[id] = l
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for id, l := range levels {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET level = ? WHERE id = ?`, l.String(), id); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `CREATE UNIQUE INDEX runs_by_level ON runs (experiment_id, variant, level, rep)`)
	return err
}
