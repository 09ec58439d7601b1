package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// rowBatch is how many rows one INSERT writes. Binding many rows per
// statement, rather than one, is what makes a million samples take
// seconds: the per-statement cost is paid a hundred times less often.
// More rows gain little more, and a statement is prepared anew for each
// run (and for its last, shorter batch), at a cost that grows with its
// rows: a run of a few hundred rows would pay for a statement of as many.
// SQLite allows 32766 parameters per statement; a row has at most 9.
const rowBatch = 100

// A batchInsert writes rows of one table that share a run_id, many rows
// to a statement.
type batchInsert struct {
	head string // INSERT INTO table (run_id, columns…) VALUES
	cols int    // parameters of one row, run_id aside
	what string // what a row is, for errors: samples, probe points
}

// stmt returns b's INSERT of n rows sharing run_id ?1.
func (b batchInsert) stmt(n int) string {
	row := "(?1" + strings.Repeat(",?", b.cols) + ")"
	var s strings.Builder
	s.Grow(len(b.head) + n*(len(row)+1))
	s.WriteString(b.head)
	for i := range n {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteString(row)
	}
	return s.String()
}

// insert writes n rows in batches of rowBatch: fill appends the
// parameters of rows off to off+k−1 to args and returns it.
func (b batchInsert) insert(ctx context.Context, tx *sql.Tx, runID int64, n int,
	fill func(args []any, off, k int) ([]any, error)) error {
	var (
		st   *sql.Stmt
		rows int // rows of st
		args = make([]any, 0, 1+b.cols*min(n, rowBatch))
	)
	defer func() {
		if st != nil {
			discard(st)
		}
	}()
	for off := 0; off < n; off += rowBatch {
		k := min(rowBatch, n-off)
		var err error
		if k != rows {
			if st != nil {
				discard(st)
			}
			if st, err = tx.PrepareContext(ctx, b.stmt(k)); err != nil {
				return err
			}
			rows = k
		}
		if args, err = fill(append(args[:0], runID), off, k); err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("%s %d to %d: %w", b.what, off, off+k-1, err)
		}
	}
	return nil
}
