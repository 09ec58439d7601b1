package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// TestDuplicateTrial checks that a trial keeps one run: a second done run
// is refused, an interrupted or failed one is replaced whole.
func TestDuplicateTrial(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	exp := newExperiment(t, db, "dup", "a")
	res := recorded(t, time.Now(), 500, 3)
	tr := Trial{Variant: "plain", Level: record.Level{Rate: 200}, Rep: 1}
	if _, err := db.WriteRun(ctx, exp.ID, info(tr, 0), res, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err := db.WriteRun(ctx, exp.ID, info(tr, 0), res, nil, nil, nil)
	if !errors.Is(err, ErrDuplicateRun) || !strings.Contains(err.Error(), "plain rate=200/s c=0 rep=1") {
		t.Errorf("second run of a done trial: %v; want ErrDuplicateRun naming the trial", err)
	}
	// The UNIQUE constraint itself holds, whatever the Go code checks.
	_, err = db.w.ExecContext(ctx, `INSERT INTO runs (experiment_id, variant, rate, concurrency, rep,
		position, mode, status, started_at, ended_at, origin_unix_ns, interval_ns, duration_seconds,
		requests, errors, unsuccessful, samples, samples_dropped, flags)
		SELECT experiment_id, variant, rate, concurrency, rep, 9, '', 'done', '', '', 0, 0, 0, 0, 0, 0, 0, 0, '[]'
		FROM runs WHERE id = 1`)
	if err == nil || !strings.Contains(err.Error(), "UNIQUE constraint failed: runs.experiment_id, runs.variant, runs.rate, runs.concurrency, runs.rep") {
		t.Errorf("duplicate trial through SQL: %v; want the trial key's UNIQUE constraint error", err)
	}

	tr.Rep = 2
	partial := info(tr, 1)
	partial.Status, partial.Error = Interrupted, "interrupted by Ctrl-C"
	if _, err := db.WriteRun(ctx, exp.ID, partial, res, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	redo := recorded(t, time.Now(), 300, 4)
	id, err := db.WriteRun(ctx, exp.ID, info(tr, 1), redo, nil, nil, nil)
	if err != nil {
		t.Fatalf("redoing an interrupted trial: %v", err)
	}
	if n := count(t, db, `SELECT count(*) FROM runs WHERE rep = 2`); n != 1 {
		t.Errorf("%d runs of the redone trial, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM samples WHERE run_id NOT IN (SELECT id FROM runs)`); n != 0 {
		t.Errorf("%d samples of the replaced run left behind", n)
	}
	if n := count(t, db, `SELECT count(*) FROM samples WHERE run_id = ?`, id); n != 300 {
		t.Errorf("%d samples of the new run, want 300", n)
	}
}

// TestFailedRunWithoutResult stores a run that never measured anything.
func TestFailedRunWithoutResult(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	exp := newExperiment(t, db, "x", "x")
	in := info(Trial{Variant: "external", Level: record.Level{Rate: 10}, Rep: 1}, 0)
	in.Status, in.Error = Failed, "readiness: http://127.0.0.1:9000/healthz not ready after 30s"
	id, err := db.WriteRun(ctx, exp.ID, in, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Failed || r.Error != in.Error || r.Summary != nil || r.Warmup != nil || len(r.Flags) != 0 {
		t.Errorf("run = %+v", r)
	}
	if _, err := db.Run(ctx, id+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run(%d): %v; want ErrNotFound", id+1, err)
	}
	if _, err := db.WriteRun(ctx, exp.ID+1, in, nil, nil, nil, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("run of a missing experiment: %v; want ErrNotFound", err)
	}
}

// TestConcurrentReaders reads while runs are written: readers never see a
// part of a run, and the race detector watches the DB's own state.
func TestConcurrentReaders(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	exp := newExperiment(t, db, "x", "x")
	res := recorded(t, time.Now(), 1000, 12)
	const runs = 10
	done := make(chan error, 1)
	go func() {
		for rep := range runs {
			if _, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Rep: rep}, rep), res, nil, nil, nil); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				rs, err := db.Runs(ctx, exp.ID)
				if err != nil {
					errs <- err
					return
				}
				for _, r := range rs {
					ivs, err := db.Intervals(ctx, r.ID, Measure)
					if err == nil && len(ivs) != len(res.Intervals) {
						err = fmt.Errorf("run %d: %d intervals, want %d", r.ID, len(ivs), len(res.Intervals))
					}
					if err != nil {
						errs <- err
						return
					}
				}
				if len(rs) == runs {
					errs <- nil
					return
				}
			}
		}()
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestCancelledWrite cancels a big write midway: nothing of it remains.
func TestCancelledWrite(t *testing.T) {
	db, _ := openTemp(t)
	exp := newExperiment(t, db, "x", "x")
	res := withSamples(recorded(t, time.Now(), 1000, 13), bigSamples)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Rep: 1}, 0), res, nil, nil, nil)
	if err == nil {
		t.Fatal("a write cancelled midway succeeded; make it bigger")
	}
	t.Log(err)
	if n := count(t, db, `SELECT count(*) FROM runs`) + count(t, db, `SELECT count(*) FROM samples`); n != 0 {
		t.Errorf("%d rows of the cancelled run remain", n)
	}
}
