package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/latlab/latlab/record"
)

// TestLevelsOneDigitApart stores rates one apart in the seventh digit as
// two trials, each with its own level, and refuses a second done run of
// either.
func TestLevelsOneDigitApart(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	exp := newExperiment(t, db, "close", "spec")
	trials := []Trial{
		{"a", record.Level{Rate: 1234567}, 1},
		{"a", record.Level{Rate: 1234568}, 1},
		{"a", record.Level{Rate: 1234568, Concurrency: 64}, 1},
	}
	for i, tr := range trials {
		if _, err := db.WriteRun(ctx, exp.ID, info(tr, i), nil, nil, nil, nil); err != nil {
			t.Fatalf("run %s: %v", tr, err)
		}
	}
	if got, _ := db.CompletedTrials(ctx, exp.ID); !slices.Equal(got, trials) {
		t.Errorf("completed trials %v; want %v", got, trials)
	}
	for i, tr := range trials {
		if _, err := db.WriteRun(ctx, exp.ID, info(tr, i), nil, nil, nil, nil); !errors.Is(err, ErrDuplicateRun) {
			t.Errorf("second run of %s: error %v; want ErrDuplicateRun", tr, err)
		}
	}
	if n := count(t, db, `SELECT count(DISTINCT level) FROM runs`); n != 3 {
		t.Errorf("%d levels stored; want 3", n)
	}
}

// TestFormat1Upgrades reads a file of format 1 as it is, then upgrades it:
// every run gets its level's text, and a resumed plan skips and replaces
// the runs it did before.
func TestFormat1Upgrades(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	exp := newExperiment(t, db, "old", "spec")
	trials := []Trial{
		{"a", record.Level{Rate: 1234567}, 1},
		{"a", record.Level{Rate: 1234568}, 1},
		{"a", record.Level{Rate: 0.1}, 1},
		{"b", record.Level{Concurrency: 8}, 1},
		{"c", record.Level{Rate: 7, Concurrency: 64}, 1},
	}
	for i, tr := range trials {
		in := info(tr, i)
		if tr.Rate == 0.1 {
			in.Status = Interrupted
		}
		if _, err := db.WriteRun(ctx, exp.ID, in, nil, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Back to format 1 as it was released: no level column, no index on
	// it, no shards.
	if _, err := db.w.Exec(`DROP TABLE shards; DROP INDEX runs_by_level; ALTER TABLE runs DROP COLUMN level;
		UPDATE meta SET value = '1' WHERE key = 'format_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("format 1 read-only: %v", err)
	}
	runs, err := ro.Runs(ctx, exp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if shards, err := ro.Shards(ctx, runs[0].ID); err != nil || shards != nil {
		t.Errorf("format 1 read-only: shards %v, %v; want none", shards, err)
	}
	ro.Close()
	var read []Trial
	for _, r := range runs {
		read = append(read, r.Trial)
	}
	if !slices.Equal(read, trials) {
		t.Errorf("format 1 read-only: runs %v; want %v", read, trials)
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("upgrading format 1: %v", err)
	}
	defer db.Close()
	var levels string
	if err := db.r.QueryRow(`SELECT group_concat(level, ',') FROM (SELECT level FROM runs ORDER BY id)`).Scan(&levels); err != nil {
		t.Fatal(err)
	}
	if want := "1.234567e+06/s,1.234568e+06/s,0.1/s,c=8,7/s c=64"; levels != want {
		t.Errorf("levels %s; want %s", levels, want)
	}
	if v := count(t, db, `SELECT value FROM meta WHERE key = 'format_version'`); v != FormatVersion {
		t.Errorf("format version %d; want %d", v, FormatVersion)
	}
	done, err := db.CompletedTrials(ctx, exp.ID)
	if want := slices.Delete(slices.Clone(trials), 2, 3); err != nil || !slices.Equal(done, want) {
		t.Errorf("completed trials %v, %v; want %v", done, err, want)
	}
	if _, err := db.WriteRun(ctx, exp.ID, info(trials[0], 0), nil, nil, nil, nil); !errors.Is(err, ErrDuplicateRun) {
		t.Errorf("a done trial again: error %v; want ErrDuplicateRun", err)
	}
	if _, err := db.WriteRun(ctx, exp.ID, info(trials[2], 2), nil, nil, nil, nil); err != nil {
		t.Errorf("the interrupted trial again: %v", err)
	}
	if n := count(t, db, `SELECT count(*) FROM runs`); n != int64(len(trials)) {
		t.Errorf("%d runs; want %d", n, len(trials))
	}
}
