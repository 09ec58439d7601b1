package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/latlab/latlab/record"
)

// PendingInfix names a side file of a database: results.db.pending-3-17.db
// holds a run of experiment 3 at plan position 17 that could not be
// committed to results.db.
const PendingInfix = ".pending-"

// SavePending stores a run that could not be committed to the database in
// a side file beside it, a results database of its own holding a copy of
// experiment exp and the run, written as WriteRun writes. It returns the
// side file's path. ImportPending brings the run into the database later;
// until then latlab report, ls and sqlite3 read the side file as they read
// any results database.
func (db *DB) SavePending(ctx context.Context, exp Experiment, info RunInfo, res, warmup *record.Result,
	probes []ProbePoint, profiles []Profile) (string, error) {
	path, err := reservePending(db.path, exp.ID, info.Position)
	if err != nil {
		return "", fmt.Errorf("keeping run %s beside %s: %w", info.Trial, db.path, err)
	}
	side, err := Open(ctx, path)
	if err != nil {
		return path, err
	}
	defer side.Close() // the error that matters is the one below
	e, err := side.CreateExperiment(ctx, exp)
	if err != nil {
		return path, err
	}
	if _, err := side.WriteRun(ctx, e.ID, info, res, warmup, probes, profiles); err != nil {
		return path, err
	}
	return path, side.Close()
}

// reservePending creates the empty side file for a run of experiment expID
// at position pos beside the database at path, under a name no other file
// has.
func reservePending(path string, expID int64, pos int) (string, error) {
	for i := 1; ; i++ {
		name := fmt.Sprintf("%s%s%d-%d.db", path, PendingInfix, expID, pos)
		if i > 1 {
			name = fmt.Sprintf("%s%s%d-%d-%d.db", path, PendingInfix, expID, pos, i)
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return name, f.Close()
	}
}

// PendingFiles returns the side files of the database at path that
// SavePending wrote and ImportPending has not yet taken in.
func PendingFiles(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, base+PendingInfix) && strings.HasSuffix(n, ".db") && e.Type().IsRegular() {
			out = append(out, filepath.Join(filepath.Dir(path), n))
		}
	}
	return out, nil
}

// Imported is what ImportPending took in from one side file.
type Imported struct {
	File    string
	Runs    []Trial // stored in the database
	Skipped []Trial // left out: the database holds a done run of the trial already
}

// ImportPending takes every side file of the database in, each in one
// transaction, and removes it once committed. A side file's experiment is
// matched by name, spec hash and creation time, and added if the database
// has none; a run replaces one that failed or was interrupted, and is left
// out where the trial has a done run already. A side file that cannot be
// read stops the import with an error naming it, and stays.
func (db *DB) ImportPending(ctx context.Context) ([]Imported, error) {
	files, err := PendingFiles(db.path)
	if err != nil {
		return nil, fmt.Errorf("looking for side files of %s: %w", db.path, err)
	}
	var out []Imported
	for _, f := range files {
		im, err := db.importPending(ctx, f)
		if err != nil {
			return out, fmt.Errorf("importing side file %s into %s: %w", f, db.path, err)
		}
		out = append(out, im)
		if err := os.Remove(f); err != nil {
			return out, fmt.Errorf("removing side file %s, imported into %s: %w", f, db.path, err)
		}
	}
	return out, nil
}

func (db *DB) importPending(ctx context.Context, path string) (Imported, error) {
	im := Imported{File: path}
	w, err := db.writer("importing into")
	if err != nil {
		return im, err
	}
	// Opened once on its own: a latlab database of this format, its log
	// folded in, not being written by anyone.
	side, err := Open(ctx, path)
	if err != nil {
		return im, err
	}
	if err := side.Close(); err != nil {
		return im, err
	}
	conn, err := w.Conn(ctx)
	if err != nil {
		return im, err
	}
	defer discard(conn)
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS pending`, path); err != nil {
		return im, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE pending`) //nolint:errcheck // nothing to do about it
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return im, err
	}
	defer rollback(tx)
	exps, err := importExperiments(ctx, tx)
	if err != nil {
		return im, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, experiment_id, variant, rate, concurrency, rep FROM pending.runs ORDER BY id`)
	if err != nil {
		return im, err
	}
	type pendingRun struct {
		id, exp int64
		t       Trial
	}
	var runs []pendingRun
	for rows.Next() {
		var r pendingRun
		if err := rows.Scan(&r.id, &r.exp, &r.t.Variant, &r.t.Rate, &r.t.Concurrency, &r.t.Rep); err != nil {
			discard(rows)
			return im, err
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return im, err
	}
	children, err := runTables(ctx, tx)
	if err != nil {
		return im, err
	}
	for _, r := range runs {
		err := replaceUnfinished(ctx, tx, exps[r.exp], r.t)
		if errors.Is(err, ErrDuplicateRun) {
			im.Skipped = append(im.Skipped, r.t)
			continue
		}
		if err != nil {
			return im, err
		}
		if err := copyRun(ctx, tx, r.id, exps[r.exp], children); err != nil {
			return im, fmt.Errorf("run %s: %w", r.t, err)
		}
		im.Runs = append(im.Runs, r.t)
	}
	return im, tx.Commit()
}

// importExperiments finds or adds each experiment of the side file and
// returns their IDs in the database by their IDs in the side file.
func importExperiments(ctx context.Context, tx *sql.Tx) (map[int64]int64, error) {
	cols, err := columns(ctx, tx, "experiments")
	if err != nil {
		return nil, err
	}
	// Only those with a run: a side file whose writer was killed before
	// its run was in brings nothing.
	rows, err := tx.QueryContext(ctx, `SELECT p.id, e.id FROM pending.experiments p
		LEFT JOIN main.experiments e ON e.name = p.name AND e.spec_hash = p.spec_hash AND e.created_at = p.created_at
		WHERE p.id IN (SELECT experiment_id FROM pending.runs)`)
	if err != nil {
		return nil, err
	}
	ids := map[int64]sql.NullInt64{}
	for rows.Next() {
		var p int64
		var e sql.NullInt64
		if err := rows.Scan(&p, &e); err != nil {
			discard(rows)
			return nil, err
		}
		ids[p] = e
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := map[int64]int64{}
	for p, e := range ids {
		if e.Valid {
			out[p] = e.Int64
			continue
		}
		list := strings.Join(cols, ", ")
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO main.experiments (`+list+`) SELECT `+list+
			` FROM pending.experiments WHERE id = ? RETURNING id`, p).Scan(&id); err != nil {
			return nil, fmt.Errorf("experiment %d: %w", p, err)
		}
		out[p] = id
	}
	return out, nil
}

// copyRun copies the side file's run id, and its rows of every table in
// children, into experiment expID of the database.
func copyRun(ctx context.Context, tx *sql.Tx, id, expID int64, children []string) error {
	cols, err := columns(ctx, tx, "runs", "experiment_id")
	if err != nil {
		return err
	}
	list := strings.Join(cols, ", ")
	var newID int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO main.runs (experiment_id, `+list+`) SELECT ?, `+list+
		` FROM pending.runs WHERE id = ? RETURNING id`, expID, id).Scan(&newID); err != nil {
		return err
	}
	for _, table := range children {
		cols, err := columns(ctx, tx, table, "run_id")
		if err != nil {
			return err
		}
		list := strings.Join(cols, ", ")
		if _, err := tx.ExecContext(ctx, `INSERT INTO main.`+table+` (run_id, `+list+`) SELECT ?, `+list+
			` FROM pending.`+table+` WHERE run_id = ?`, newID, id); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return nil
}

// runTables returns the tables that hold a run's rows: every table of
// the schema with a run_id column.
func runTables(ctx context.Context, tx *sql.Tx) ([]string, error) {
	return quotedNames(ctx, tx, `SELECT m.name FROM main.sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type = 'table' AND c.name = 'run_id' ORDER BY m.name`)
}

// columns returns the quoted columns of table in the database, but for
// its row id (a column id) and those named in except.
func columns(ctx context.Context, tx *sql.Tx, table string, except ...string) ([]string, error) {
	all, err := quotedNames(ctx, tx, `SELECT name FROM pragma_table_info(?, 'main')`, strings.Trim(table, `"`))
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(all, func(n string) bool {
		return n == `"id"` || slices.Contains(except, strings.Trim(n, `"`))
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("table %s has no columns", table)
	}
	return out, nil
}

// quotedNames returns the names query selects, one per row, each quoted
// as an SQL identifier.
func quotedNames(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer discard(rows)
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, `"`+n+`"`)
	}
	return out, rows.Err()
}
