package store

import (
	"errors"
	"fmt"
	"strings"
)

// A DamagedRow is a row of a results database that does not decode: a
// JSON column that is not JSON, a histogram blob that is not an
// HdrHistogram, a value of the wrong type — what a disk, a crash outside
// SQLite's care or a hand edit leaves. A read that meets one skips it and
// goes on.
type DamagedRow struct {
	Table string // such as "runs" or "histograms"
	Row   string // which row, as people name it: "run 7 (b rate=200/s c=0 rep=2)", "run 7, measure latency"
	RunID int64  // the run the row is of; 0 when even that does not read
	Err   error  // what is wrong, naming the column
	// Run is what could be read of a row of runs: its ID, trial, position
	// and status when they decode. Nil for other tables.
	Run *Run
}

func (d DamagedRow) Error() string {
	return fmt.Sprintf("table %s, %s: %v", d.Table, d.Row, d.Err)
}

func (d DamagedRow) Unwrap() error { return d.Err }

// Damaged is the error of a read that skipped damaged rows: it returns,
// beside it, every row that decodes. A caller that can do without the
// rows named tells it from other errors with errors.As and carries on,
// warning of each.
type Damaged struct {
	Path string
	Rows []DamagedRow
}

func (d *Damaged) Error() string {
	parts := make([]string, len(d.Rows))
	for i, r := range d.Rows {
		parts[i] = r.Error()
	}
	return fmt.Sprintf("%s: %d damaged row(s) skipped: %s", d.Path, len(d.Rows), strings.Join(parts, "; "))
}

// add records a damaged row.
func (d *Damaged) add(r DamagedRow) { d.Rows = append(d.Rows, r) }

// err returns d when it holds a row, else nil.
func (d *Damaged) err() error {
	if len(d.Rows) == 0 {
		return nil
	}
	return d
}

// DamagedRows returns the damaged rows err reports, and whether err is
// nothing else: nil, or a *Damaged (wrapped or not).
func DamagedRows(err error) ([]DamagedRow, bool) {
	if err == nil {
		return nil, true
	}
	var d *Damaged
	if errors.As(err, &d) {
		return d.Rows, true
	}
	return nil, false
}
