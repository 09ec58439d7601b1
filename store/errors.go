package store

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The errors a caller may want to tell apart, with errors.Is. Every error
// the package returns also names the database's path and the step that
// failed.
var (
	// ErrNotDatabase means the file is not a latlab results database: not
	// SQLite at all, or another program's SQLite database.
	ErrNotDatabase = errors.New("not a latlab results database")
	// ErrTooNew means the file was written by a newer latlab, in a format
	// version this code does not know.
	ErrTooNew = errors.New("format too new")
	// ErrReadOnly means the file, or the directory that must hold its
	// write-ahead log, cannot be written, or the DB was opened read-only.
	ErrReadOnly = errors.New("read-only")
	// ErrFull means the disk (or the file's size limit) is full. The write
	// that hit it was rolled back whole.
	ErrFull = errors.New("disk full")
	// ErrCorrupt means SQLite found the file damaged.
	ErrCorrupt = errors.New("database file is damaged")
	// ErrDuplicateRun means the trial already has a finished run: the plan
	// must not run it twice.
	ErrDuplicateRun = errors.New("trial already has a finished run")
	// ErrNotFound means no experiment or run matched.
	ErrNotFound = errors.New("not found")
	// ErrLocked means another process writes the database: a latlab that
	// holds its writer lock (a *LockedError names it), or a connection
	// that holds a write transaction, such as a sqlite3 shell.
	ErrLocked = errors.New("locked by another writer")
)

// wrap describes err, which step op on the database at path returned: it
// names the path and, when SQLite's code says what went wrong in a way a user
// can act on, adds the matching sentinel error above.
func wrap(path, op string, err error) error {
	if err == nil {
		return nil
	}
	if sentinel := classify(err); sentinel != nil && !errors.Is(err, sentinel) {
		return fmt.Errorf("%s %s: %w: %w", op, path, sentinel, err)
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}

// described is an error whose message replaces that of the error it wraps,
// which errors.Is and errors.As still find.
type described struct {
	msg string
	err error
}

func (e described) Error() string { return e.msg }
func (e described) Unwrap() error { return e.err }

// plain restates what opening a file found in a user's words rather than
// SQLite's or the system call's: "not a SQLite file" for SQLite's "file is
// not a database (26)", "no such file" for a stat's ENOENT.
func plain(err error) error {
	var se *sqlite.Error
	switch {
	case errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB:
		return described{ErrNotDatabase.Error() + ": not a SQLite file", errors.Join(ErrNotDatabase, err)}
	case errors.Is(err, fs.ErrNotExist):
		return described{"no such file", err}
	}
	return err
}

// classify maps err to one of the sentinel errors, or nil.
func classify(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary code, without the extended bits
		case sqlite3.SQLITE_NOTADB:
			return ErrNotDatabase
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
			return ErrReadOnly
		case sqlite3.SQLITE_FULL:
			return ErrFull
		case sqlite3.SQLITE_CORRUPT:
			return ErrCorrupt
		case sqlite3.SQLITE_BUSY:
			return ErrLocked
		}
	}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return ErrFull
	case errors.Is(err, syscall.EROFS), errors.Is(err, fs.ErrPermission):
		return ErrReadOnly
	}
	return nil
}

// isConstraint reports whether err is SQLite refusing a row for the
// constraint with extended code ext, such as SQLITE_CONSTRAINT_UNIQUE.
func isConstraint(err error, ext int) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == ext
}
