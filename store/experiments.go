package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// An Experiment is one study in the database: a spec run as a plan of
// trials, or a single attack.
type Experiment struct {
	ID   int64  // set by CreateExperiment
	Name string // the spec's name
	Spec string // the spec file as written
	// SpecHash identifies the spec, so that running it again resumes this
	// experiment. CreateExperiment fills in SpecHash(Spec) when it is empty.
	SpecHash      string
	FormatVersion int       // the format the experiment began in; set by CreateExperiment
	CreatedAt     time.Time // zero means now
	Provenance    Provenance
}

// Provenance records where and how an experiment ran. It is stored as the
// JSON object its tags describe; every field may be left empty.
type Provenance struct {
	Host          string     `json:"host,omitempty"`
	Kernel        string     `json:"kernel,omitempty"`    // uname -sr
	CPUModel      string     `json:"cpu_model,omitempty"` // as /proc/cpuinfo names it
	CPUCount      int        `json:"cpu_count,omitempty"` // CPUs the process may use
	Governor      string     `json:"cpu_governor,omitempty"`
	LoadAverage   [3]float64 `json:"load_average"` // 1, 5 and 15 minutes, at the start
	GoVersion     string     `json:"go_version,omitempty"`
	LatlabVersion string     `json:"latlab_version,omitempty"`
	Seed          int64      `json:"seed"`              // the plan's shuffle seed
	GitSHA        string     `json:"git_sha,omitempty"` // of the spec's directory, where it is a repository
	// Commands maps a variant to the commands run to set it up and tear it
	// down.
	Commands map[string][]string `json:"commands,omitempty"`
	Extra    map[string]string   `json:"extra,omitempty"` // anything else worth keeping
}

// SpecHash returns the hex SHA-256 of spec, the default Experiment.SpecHash.
func SpecHash(spec string) string {
	sum := sha256.Sum256([]byte(spec))
	return hex.EncodeToString(sum[:])
}

// CreateExperiment adds e to the database and returns it with its ID,
// format version, creation time and spec hash set.
func (db *DB) CreateExperiment(ctx context.Context, e Experiment) (Experiment, error) {
	const op = "creating experiment in"
	w, err := db.writer(op)
	if err != nil {
		return e, err
	}
	if e.Name == "" {
		return e, fmt.Errorf("%s %s: the experiment has no name", op, db.path)
	}
	if e.SpecHash == "" {
		e.SpecHash = SpecHash(e.Spec)
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now()
	}
	e.FormatVersion = FormatVersion
	prov, err := json.Marshal(e.Provenance)
	if err != nil {
		return e, fmt.Errorf("%s %s: provenance: %w", op, db.path, err)
	}
	err = w.QueryRowContext(ctx, `INSERT INTO experiments
		(name, spec, spec_hash, format_version, created_at, provenance)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		e.Name, e.Spec, e.SpecHash, e.FormatVersion, formatTime(e.CreatedAt), string(prov)).Scan(&e.ID)
	if err != nil {
		return e, wrap(db.path, op, err)
	}
	return e, nil
}

// UpdateExperiment rewrites the spec, spec hash and provenance of the
// stored experiment e.ID to e's: an experiment that goes on under a spec
// changed only where it may change without starting again (more runs)
// keeps its ID, runs and creation time, and names the spec it now runs,
// so that a later resume and the reports read that one.
func (db *DB) UpdateExperiment(ctx context.Context, e Experiment) error {
	const op = "updating experiment in"
	w, err := db.writer(op)
	if err != nil {
		return err
	}
	if e.SpecHash == "" {
		e.SpecHash = SpecHash(e.Spec)
	}
	prov, err := json.Marshal(e.Provenance)
	if err != nil {
		return fmt.Errorf("%s %s: provenance: %w", op, db.path, err)
	}
	res, err := w.ExecContext(ctx, `UPDATE experiments SET spec = ?, spec_hash = ?, provenance = ? WHERE id = ?`,
		e.Spec, e.SpecHash, string(prov), e.ID)
	if err != nil {
		return wrap(db.path, op, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return wrap(db.path, op, fmt.Errorf("experiment %d: %w", e.ID, ErrNotFound))
	}
	return nil
}

const experimentColumns = `id, name, spec, spec_hash, format_version, created_at, provenance`

// Experiments returns every experiment in the database, oldest first.
func (db *DB) Experiments(ctx context.Context) ([]Experiment, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+experimentColumns+` FROM experiments ORDER BY id`)
	if err != nil {
		return nil, wrap(db.path, "listing experiments in", err)
	}
	defer discard(rows)
	var out []Experiment
	for rows.Next() {
		e, err := scanExperiment(rows)
		if err != nil {
			return nil, wrap(db.path, "listing experiments in", err)
		}
		out = append(out, e)
	}
	return out, wrap(db.path, "listing experiments in", rows.Err())
}

// Experiment returns the experiment with the given ID, or ErrNotFound.
func (db *DB) Experiment(ctx context.Context, id int64) (Experiment, error) {
	row := db.r.QueryRowContext(ctx, `SELECT `+experimentColumns+` FROM experiments WHERE id = ?`, id)
	e, err := scanExperiment(row)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("experiment %d: %w", id, ErrNotFound)
	}
	return e, wrap(db.path, "reading", err)
}

// FindExperiment returns the latest experiment whose spec has the given
// hash, the one to resume, or ErrNotFound.
func (db *DB) FindExperiment(ctx context.Context, specHash string) (Experiment, error) {
	row := db.r.QueryRowContext(ctx, `SELECT `+experimentColumns+` FROM experiments
		WHERE spec_hash = ? ORDER BY id DESC LIMIT 1`, specHash)
	e, err := scanExperiment(row)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("experiment with spec hash %.12s: %w", specHash, ErrNotFound)
	}
	return e, wrap(db.path, "finding experiment in", err)
}

// CompletedTrials returns the trials of experiment expID that have a run
// with status done, in plan order: the ones a resumed plan skips. Trials
// whose run failed or was interrupted are left out, to be run again.
func (db *DB) CompletedTrials(ctx context.Context, expID int64) ([]Trial, error) {
	const op = "listing completed trials in"
	rows, err := db.r.QueryContext(ctx, `SELECT variant, rate, concurrency, rep FROM runs
		WHERE experiment_id = ? AND status = 'done' ORDER BY position, id`, expID)
	if err != nil {
		return nil, wrap(db.path, op, err)
	}
	defer discard(rows)
	var out []Trial
	for rows.Next() {
		var t Trial
		if err := rows.Scan(&t.Variant, &t.Rate, &t.Concurrency, &t.Rep); err != nil {
			return nil, wrap(db.path, op, err)
		}
		out = append(out, t)
	}
	return out, wrap(db.path, op, rows.Err())
}

type scanner interface{ Scan(dest ...any) error }

func scanExperiment(s scanner) (Experiment, error) {
	var e Experiment
	var created, prov string
	if err := s.Scan(&e.ID, &e.Name, &e.Spec, &e.SpecHash, &e.FormatVersion, &created, &prov); err != nil {
		return e, err
	}
	var err error
	if e.CreatedAt, err = parseTime(created); err != nil {
		return e, fmt.Errorf("experiment %d: created_at: %w", e.ID, err)
	}
	if err := json.Unmarshal([]byte(prov), &e.Provenance); err != nil {
		return e, fmt.Errorf("experiment %d: provenance: %w", e.ID, err)
	}
	return e, nil
}
