package store

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// FormatVersion is the database format this code writes. Open migrates an
// older file up to it and refuses a newer one.
const FormatVersion = 3

// readableVersion is the oldest format OpenReadOnly reads as it is: what
// format 2 adds (runs.level) no read needs, as a run's rate and
// concurrency give its level, and format 3's shards are none in an older
// file.
const readableVersion = 1

// schemaV1 creates format version 1 in an empty database.
//
//go:embed schema.sql
var schemaV1 string

// migrations[i] brings a database from format version i to i+1; version 0
// is an empty file. A new version appends a step (ALTER TABLE ... ADD
// COLUMN, CREATE TABLE ...) and raises FormatVersion; steps already
// released never change.
var migrations = []func(context.Context, *sql.Tx) error{script(schemaV1), levelColumn, script(shardsTable)}

// script is a migration step that runs the statements stmts.
func script(stmts string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, stmts)
		return err
	}
}

// busyTimeout is how long a statement waits for another process's lock
// before failing with "database is locked".
const busyTimeout = 10 * time.Second

// writableWait is how long Open waits for another connection's write
// transaction to end before it refuses the file as locked: a run must know
// it can store its results before it sends any load.
const writableWait = 2 * time.Second

// timeFormat writes *_at columns: UTC, fixed width, so that they sort as text.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

// A DB is an open results database. Its methods are safe for concurrent
// use, but writes are serialized: see the package documentation.
type DB struct {
	path string
	w    *sql.DB // the single writing connection; nil when read-only
	r    *sql.DB // reading connections
	lock *writerLock
}

// Open opens the results database at path, creating it if it does not
// exist, and migrates it to FormatVersion. It refuses a file that is not a
// latlab database, one in a newer format, and one it cannot write. It takes
// the file's writer lock until Close, and refuses with a *LockedError a
// file another process has open for writing; a connection that holds a
// write transaction on it for more than 2 s is refused with ErrLocked too.
func Open(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, false)
}

// OpenReadOnly opens an existing results database for reading only. Write
// methods of the returned DB fail with ErrReadOnly.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, true)
}

func open(ctx context.Context, path string, readOnly bool) (_ *DB, err error) {
	const op = "opening results database"
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, path, err)
	}
	if err := checkPath(abs, readOnly); err != nil {
		return nil, wrap(path, op, plain(err))
	}
	db := &DB{path: path}
	defer func() {
		if err != nil {
			_ = db.Close() // the error to report is the one that got here
		}
	}()
	if !readOnly {
		if db.lock, err = lockWriter(abs); err != nil {
			return nil, wrap(path, op, err)
		}
		db.w, err = sql.Open("sqlite", dsn(abs, "_txlock=immediate", "_foreign_keys=1", "_synchronous=NORMAL"))
		if err != nil {
			return nil, wrap(path, op, err)
		}
		// One connection: this process's writes queue here, in order,
		// rather than in SQLite's busy loop.
		db.w.SetMaxOpenConns(1)
		if err := db.migrate(ctx); err != nil {
			return nil, wrap(path, op, plain(err))
		}
		if err := db.writable(ctx); err != nil {
			return nil, wrap(path, op, err)
		}
		if db.r, err = readers(abs, "_query_only=1"); err != nil {
			return nil, wrap(path, op, err)
		}
		return db, nil
	}
	if db.r, err = readers(abs, readOnlyMode(abs)); err != nil {
		return nil, wrap(path, op, err)
	}
	v, err := version(ctx, db.r)
	if errors.Is(classify(err), ErrReadOnly) {
		// A reader of a write-ahead log needs its index file (-shm) beside
		// the database, and may not create it in a read-only directory.
		// Opened immutable, SQLite reads the file alone. That is safe here:
		// no one can write the database without creating its log there,
		// unless a writer crashed and left runs in one.
		if fi, err := os.Stat(abs + "-wal"); err == nil && fi.Size() > 0 {
			return nil, wrap(path, op, fmt.Errorf("%w: its write-ahead log holds runs not yet in the file "+
				"and cannot be read in a read-only directory: open it once where it can be written", ErrReadOnly))
		}
		discard(db.r)
		if db.r, err = readers(abs, "mode=ro", "immutable=1"); err != nil {
			return nil, wrap(path, op, err)
		}
		v, err = version(ctx, db.r)
	}
	switch {
	case err == nil && v == 0:
		err = fmt.Errorf("%w: the file is empty", ErrNotDatabase)
	case err == nil && v < readableVersion:
		err = fmt.Errorf("format version %d needs upgrading to %d: open it once for writing", v, readableVersion)
	}
	if err != nil {
		return nil, wrap(path, op, plain(err))
	}
	return db, nil
}

// readers opens the pool of reading connections.
func readers(abs string, params ...string) (*sql.DB, error) {
	r, err := sql.Open("sqlite", dsn(abs, params...))
	if err != nil {
		return nil, err
	}
	r.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)))
	return r, nil
}

// readOnlyMode is how OpenReadOnly opens the file at abs. The last
// connection to a database in write-ahead-log mode to close checkpoints the
// log and deletes it and its index (-wal, -shm), but only if it may write:
// one opened mode=ro leaves both beside the file. So where the file and its
// directory can be written, the readers open it read-write and refuse
// writes themselves (query_only); elsewhere they open it mode=ro, and the
// two files stay as SQLite leaves them.
func readOnlyMode(abs string) string {
	if unix.Access(abs, unix.W_OK) == nil && unix.Access(filepath.Dir(abs), unix.W_OK) == nil {
		return "_query_only=1"
	}
	return "mode=ro"
}

// checkPath refuses what SQLite would report vaguely or only later: a missing
// directory, a directory in the file's place, a file that cannot be written.
func checkPath(path string, readOnly bool) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%w: a directory", ErrNotDatabase)
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("%w: not a regular file", ErrNotDatabase)
	case err == nil && readOnly:
		return nil
	case err == nil:
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return err // EACCES or EROFS: classified as ErrReadOnly
		}
		f.Close()
	case !errors.Is(err, os.ErrNotExist) || readOnly:
		return err
	}
	// SQLite creates the file, or its write-ahead log and the log's index,
	// in the directory.
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("directory: %w", err)
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return fmt.Errorf("directory %s: %w: %w", dir, ErrReadOnly, err)
	}
	return nil
}

// dsn is the driver's name for the database at the absolute path abs with
// the given query parameters, as a SQLite URI so that any file name works.
func dsn(abs string, params ...string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	params = append(params, "_busy_timeout="+strconv.FormatInt(busyTimeout.Milliseconds(), 10))
	return u.String() + "?" + strings.Join(params, "&")
}

// migrate turns on the write-ahead log and brings the file to FormatVersion
// in one transaction, so a failed upgrade leaves the file as it was.
func (db *DB) migrate(ctx context.Context) error {
	// Look before changing anything: the file may be another program's.
	if v, err := version(ctx, db.w); err != nil || v == FormatVersion {
		if err == nil {
			err = db.wal(ctx)
		}
		return err
	}
	if err := db.wal(ctx); err != nil {
		return err
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer rollback(tx)
	// Again, inside the transaction: another process may have migrated it.
	v, err := version(ctx, tx)
	if err != nil || v == FormatVersion {
		return err
	}
	for i := v; i < FormatVersion; i++ {
		if err := migrations[i](ctx, tx); err != nil {
			return fmt.Errorf("migrating to format version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES
		('application', 'latlab'), ('format_version', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.Itoa(FormatVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// writable takes the file's write lock and lets it go, to refuse a file
// another connection is writing, such as a sqlite3 shell in a transaction,
// before the caller spends any effort on results it could not store.
func (db *DB) writable(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, writableWait)
	defer cancel()
	tx, err := db.w.BeginTx(wctx, nil) // BEGIN IMMEDIATE: takes the write lock
	if err == nil {
		return tx.Rollback()
	}
	if ctx.Err() == nil && wctx.Err() != nil {
		return fmt.Errorf("%w: another connection (a sqlite3 shell, a program other than latlab) "+
			"holds a write transaction on it; waited %s", ErrLocked, writableWait)
	}
	return err
}

// wal turns on the write-ahead log: readers never wait for the writer, and
// a commit costs one write without a sync (synchronous=NORMAL).
func (db *DB) wal(ctx context.Context) error {
	var mode string
	if err := db.w.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("%w: cannot turn on the write-ahead log (journal mode %q)", ErrReadOnly, mode)
	}
	return nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// version returns the file's format version, 0 for an empty database. It
// fails with ErrNotDatabase for another program's database and with ErrTooNew
// past FormatVersion.
func version(ctx context.Context, q querier) (int, error) {
	var tables int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table'`).Scan(&tables)
	if err != nil {
		return 0, err
	}
	if tables == 0 {
		return 0, nil
	}
	var app, v sql.NullString
	err = q.QueryRowContext(ctx, `SELECT
		(SELECT value FROM meta WHERE key = 'application'),
		(SELECT value FROM meta WHERE key = 'format_version')`).Scan(&app, &v)
	if err != nil && !strings.Contains(err.Error(), "no such table") {
		return 0, err
	}
	if err != nil || app.String != "latlab" {
		return 0, fmt.Errorf("%w: another program's SQLite database (no latlab meta table)", ErrNotDatabase)
	}
	n, err := strconv.Atoi(v.String)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: bad format_version %q", ErrNotDatabase, v.String)
	}
	if n > FormatVersion {
		return 0, fmt.Errorf("%w: format version %d, but this latlab reads up to %d: use a newer latlab", ErrTooNew, n, FormatVersion)
	}
	return n, nil
}

// Close closes the database and lets its writer lock go. A writer folds
// the write-ahead log back into the file first (a checkpoint), and Close
// fails when it could not, a full disk say: the file alone then lacks
// results the log holds, and the error names both, which must stay
// together (SQLite folds the log in when it next opens them). Another
// process that reads the database meanwhile keeps the log until it is
// done with it, and folds it in itself: no error.
func (db *DB) Close() error {
	var errs []error
	if db.w != nil {
		errs = append(errs, db.checkpoint())
	}
	for _, c := range []*sql.DB{db.r, db.w} {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	errs = append(errs, db.lock.release())
	db.lock = nil
	return wrap(db.path, "closing results database", errors.Join(errs...))
}

// checkpoint folds the write-ahead log back into the database file and
// empties it.
func (db *DB) checkpoint() error {
	var busy, logged, folded int
	err := db.w.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &folded)
	if err != nil {
		return fmt.Errorf("folding the write-ahead log %s-wal back into it: %w; keep the two files together: %s alone lacks what the log holds", db.path, err, filepath.Base(db.path))
	}
	return nil
}

// writer returns the writing connection, or ErrReadOnly.
func (db *DB) writer(op string) (*sql.DB, error) {
	if db.w == nil {
		return nil, fmt.Errorf("%s %s: %w: opened with OpenReadOnly", op, db.path, ErrReadOnly)
	}
	return db.w, nil
}

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// rollback undoes tx unless it was committed, when it does nothing.
func rollback(tx *sql.Tx) { _ = tx.Rollback() }

// discard closes c, whose errors surface elsewhere: those of rows in Err,
// those of a statement in its transaction's Commit.
func discard(c io.Closer) { _ = c.Close() }
