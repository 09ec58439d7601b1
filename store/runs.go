package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/units"
)

// A Trial is one cell of an experiment's plan: a variant at a rate or
// concurrency, repeated. An experiment holds at most one run per trial.
type Trial struct {
	Variant string
	// The level: target requests/s, 0 in closed loop and sequential mode;
	// workers, or open loop's cap on requests in flight, 0 for none.
	record.Level
	Rep int // repetition number
}

// String returns the trial as people read it: "plain rate=100/s c=0 rep=3".
func (t Trial) String() string {
	return fmt.Sprintf("%s rate=%s c=%d rep=%d", t.Variant, units.ExactRate(t.Rate), t.Concurrency, t.Rep)
}

// Status is how a run ended.
type Status string

// The statuses of a run. Only a done run counts as completed when a plan
// resumes; the others are run again.
const (
	Done        Status = "done"        // the run went to its end
	Interrupted Status = "interrupted" // stopped early, by Ctrl-C or a deadline
	Failed      Status = "failed"      // setup, readiness or the load itself failed
)

// A Flag marks a run as questionable, with the reason: generator_saturated,
// target_cpu_high, errors, inconsistent, trend, too_few_samples.
type Flag struct {
	Name   string `json:"flag"`
	Reason string `json:"reason"`
}

// RunInfo is what the plan knows about a run, beside what it measured.
type RunInfo struct {
	Trial
	Position  int // place in the plan's order, from 0
	Status    Status
	StartedAt time.Time // the trial began, setup and warm-up included
	EndedAt   time.Time
	Flags     []Flag
	Error     string // why a failed or interrupted run stopped
	// Shards are the generators that sent a sharded run's load, each
	// with its own result; the run's is theirs merged. None for a run
	// one generator sent.
	Shards []Shard
}

// Phase tells a run's warm-up from its measurement.
type Phase string

// The phases of a run.
const (
	Warmup  Phase = "warmup"
	Measure Phase = "measure"
)

// WriteRun stores everything of one run in one transaction: its row in
// runs, the measurement res (intervals, total and step histograms, raw
// samples), the warm-up's intervals and totals, probe series and profiles.
// Either all of it is committed or none: a process killed mid-write leaves
// no trace of the run. res and warmup may be nil (a run that failed before
// measuring, a run without warm-up).
//
// A trial has at most one run. If it already has one that is done, WriteRun
// fails with ErrDuplicateRun; one that failed or was interrupted is
// replaced. A cancelled ctx rolls the write back: to store a run after
// Ctrl-C, pass context.WithoutCancel(ctx).
func (db *DB) WriteRun(ctx context.Context, expID int64, info RunInfo, res, warmup *record.Result,
	probes []ProbePoint, profiles []Profile) (int64, error) {
	op := fmt.Sprintf("writing run %s of experiment %d to", info.Trial, expID)
	w, err := db.writer(op)
	if err != nil {
		return 0, err
	}
	switch info.Status {
	case Done, Interrupted, Failed:
	default:
		return 0, fmt.Errorf("%s %s: status %q is not done, interrupted or failed", op, db.path, info.Status)
	}
	if info.Variant == "" {
		return 0, fmt.Errorf("%s %s: the run has no variant", op, db.path)
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return 0, wrap(db.path, op, err)
	}
	defer rollback(tx)
	id, err := writeRun(ctx, tx, expID, info, res, warmup, probes, profiles)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return 0, wrap(db.path, op, err)
	}
	return id, nil
}

func writeRun(ctx context.Context, tx *sql.Tx, expID int64, info RunInfo, res, warmup *record.Result,
	probes []ProbePoint, profiles []Profile) (int64, error) {
	if err := replaceUnfinished(ctx, tx, expID, info.Trial); err != nil {
		return 0, err
	}
	origin := info.StartedAt
	if res != nil && !res.Start.IsZero() {
		origin = res.Start
	}
	id, err := insertRun(ctx, tx, expID, info, origin, res, warmup)
	if err != nil {
		return 0, err
	}
	for _, p := range []struct {
		phase Phase
		r     *record.Result
	}{{Measure, res}, {Warmup, warmup}} {
		if p.r == nil {
			continue
		}
		if err := insertIntervals(ctx, tx, id, p.phase, p.r, p.r.Start.Sub(origin)); err != nil {
			return 0, err
		}
		if err := insertTotals(ctx, tx, id, p.phase, p.r); err != nil {
			return 0, err
		}
	}
	if res != nil {
		if err := insertSteps(ctx, tx, id, res.StepStats); err != nil {
			return 0, err
		}
		if err := insertSamples(ctx, tx, id, res.Raw); err != nil {
			return 0, err
		}
	}
	if err := insertProbes(ctx, tx, id, origin, probes); err != nil {
		return 0, err
	}
	if err := insertProfiles(ctx, tx, id, profiles); err != nil {
		return 0, err
	}
	if err := insertShards(ctx, tx, id, origin, info.Shards); err != nil {
		return 0, err
	}
	return id, nil
}

// replaceUnfinished deletes the trial's earlier run if it failed or was
// interrupted, and refuses to write a second run of a trial that is done.
func replaceUnfinished(ctx context.Context, tx *sql.Tx, expID int64, t Trial) error {
	var id int64
	var status Status
	err := tx.QueryRowContext(ctx, `SELECT id, status FROM runs WHERE experiment_id = ?
		AND variant = ? AND level = ? AND rep = ?`,
		expID, t.Variant, t.Level.String(), t.Rep).Scan(&id, &status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	case status == Done:
		return fmt.Errorf("%w: run %d", ErrDuplicateRun, id)
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, id)
	return err
}

func insertRun(ctx context.Context, tx *sql.Tx, expID int64, info RunInfo, origin time.Time,
	res, warmup *record.Result) (int64, error) {
	flags := info.Flags
	if flags == nil {
		flags = []Flag{}
	}
	flagsJSON, err := json.Marshal(flags)
	if err != nil {
		return 0, fmt.Errorf("flags: %w", err)
	}
	var (
		mode                 string
		interval, samples    int64
		dropped              int64
		duration             float64
		requests, errs, unsu int64
		p50, p90, p99        sql.NullInt64
		summary, warm        sql.NullString
	)
	if res != nil {
		mode, interval, duration = res.Mode, int64(res.Interval), res.Duration().Seconds()
		requests, errs, unsu = res.Requests, res.ErrorsTotal, res.Unsuccessful
		samples, dropped = int64(len(res.Raw)), res.RawDropped
		if res.Latency != nil {
			p50, p90, p99 = quantile(res.Latency, 0.5), quantile(res.Latency, 0.9), quantile(res.Latency, 0.99)
		}
		if summary, err = summaryJSON(res); err != nil {
			return 0, err
		}
	}
	if warmup != nil {
		if mode == "" {
			mode = warmup.Mode
		}
		if warm, err = summaryJSON(warmup); err != nil {
			return 0, err
		}
	}
	var errText sql.NullString
	if info.Error != "" {
		errText = sql.NullString{String: info.Error, Valid: true}
	}
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO runs (experiment_id, variant, rate, concurrency,
		level, rep, position, mode, status, started_at, ended_at, origin_unix_ns, interval_ns,
		duration_seconds, requests, errors, unsuccessful, p50_ns, p90_ns, p99_ns, samples,
		samples_dropped, flags, summary, warmup, error)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		expID, info.Variant, info.Rate, info.Concurrency, info.Level.String(), info.Rep, info.Position, mode,
		string(info.Status), formatTime(info.StartedAt), formatTime(info.EndedAt), origin.UnixNano(),
		interval, duration, requests, errs, unsu, p50, p90, p99, samples, dropped,
		string(flagsJSON), summary, warm, errText).Scan(&id)
	if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY) {
		return 0, fmt.Errorf("experiment %d: %w", expID, ErrNotFound)
	}
	if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
		return 0, fmt.Errorf("%w: %w", ErrDuplicateRun, err)
	}
	return id, err
}

func summaryJSON(r *record.Result) (sql.NullString, error) {
	sum, err := record.Summarize(r)
	if err != nil {
		return sql.NullString{}, fmt.Errorf("summary: %w", err)
	}
	b, err := json.Marshal(sum)
	if err != nil {
		return sql.NullString{}, fmt.Errorf("summary: %w", err)
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}
