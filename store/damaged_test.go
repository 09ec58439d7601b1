package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// TestRunsDamagedRow: a run whose summary is not JSON is skipped by Runs
// and named in a *Damaged error with what of it reads; Run names it too.
func TestRunsDamagedRow(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	exp := newExperiment(t, db, "damaged", "a")
	res := recorded(t, time.Now(), 200, 5)
	var ids []int64
	for rep := 1; rep <= 3; rep++ {
		id, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Level: record.Level{Rate: 100}, Rep: rep}, rep), res, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	expID := exp.ID
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE runs SET summary = '{' WHERE id = ?`, ids[0]); err != nil {
		t.Fatal(err)
	}
	runs, err := db.Runs(ctx, expID)
	rows, ok := DamagedRows(err)
	var d *Damaged
	if !ok || !errors.As(err, &d) || len(rows) != 1 {
		t.Fatalf("Runs: error %v, want a *Damaged naming one row", err)
	}
	if len(runs) != len(ids)-1 {
		t.Errorf("Runs returned %d runs, want the %d that decode", len(runs), len(ids)-1)
	}
	row := rows[0]
	if row.Table != "runs" || row.RunID != ids[0] || row.Run == nil || row.Run.ID != ids[0] ||
		!strings.Contains(row.Error(), "summary: unexpected end of JSON input") || !strings.Contains(err.Error(), path) {
		t.Errorf("damaged row %+v (%v), want run %d of table runs, its summary named", row, err, ids[0])
	}
	if _, err := db.Run(ctx, ids[0]); !errors.As(err, &d) {
		t.Errorf("Run: %v, want a *Damaged", err)
	}
}
