package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LockSuffix names the file beside a database that Open locks for as long
// as the DB is open for writing: results.db-lock.
const LockSuffix = "-lock"

// A Holder is the process that holds a database's writer lock, as it wrote
// itself into the lock file.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Since   time.Time `json:"since"`
	Command string    `json:"command"`
}

// LockedError refuses to open a database for writing that another process
// writes: it names that process. errors.Is(err, ErrLocked) holds.
type LockedError struct {
	Path   string
	Holder Holder // zero when the holder has not written itself in yet
}

func (e *LockedError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("%s: another process writes it (its lock file %s names no holder yet)", ErrLocked, e.Path+LockSuffix)
	}
	s := fmt.Sprintf("%s: pid %d on %s writes it, since %s (%s ago)", ErrLocked, h.PID, h.Host,
		h.Since.Local().Format(time.DateTime), time.Since(h.Since).Round(time.Second))
	if h.Command != "" {
		s += ": " + h.Command
	}
	return s
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// A writerLock is a database's writer lock, held through an open file
// description: the kernel releases it when the process ends, however it
// ends, so a killed writer leaves no stale lock. It is a flock(2) on its own
// file, never on the database, whose POSIX locks SQLite owns and would lose
// when any descriptor of the file were closed.
type writerLock struct {
	f    *os.File
	path string
}

// lockWriter takes the writer lock of the database at abs (an absolute
// path), without waiting: another process's lock is a *LockedError.
func lockWriter(abs string) (*writerLock, error) {
	path := abs + LockSuffix
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock file: %w", err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if errors.Is(err, unix.EWOULDBLOCK) {
			h := readHolder(f)
			f.Close()
			return nil, &LockedError{Path: abs, Holder: h}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		// The holder that was here may have removed the file it locked
		// between our open and our lock: then we locked a file no longer
		// at path, and must try again on the one that is.
		if !samePath(f, path) {
			f.Close()
			continue
		}
		h := Holder{PID: os.Getpid(), Since: time.Now().UTC().Truncate(time.Second), Command: strings.Join(os.Args, " ")}
		h.Host, _ = os.Hostname()
		b, _ := json.Marshal(h) // plain fields: cannot fail
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt(append(b, '\n'), 0)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		return &writerLock{f: f, path: path}, nil
	}
}

// samePath reports whether path still names the file f has open.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// readHolder reads who holds the lock of f. A holder that has just taken
// it may not have written itself in yet: it is given a moment.
func readHolder(f *os.File) Holder {
	var h Holder
	for range 20 {
		b := make([]byte, 4096)
		n, _ := f.ReadAt(b, 0)
		if json.Unmarshal(b[:n], &h) == nil && h.PID != 0 {
			return h
		}
		time.Sleep(5 * time.Millisecond)
	}
	return Holder{}
}

// release removes the lock file and then lets the lock go: removed first,
// so that a process that opened this file before and locks it after finds
// it gone from path (samePath), and tries again on the next file there.
func (l *writerLock) release() error {
	if l == nil {
		return nil
	}
	err := os.Remove(l.path)
	return errors.Join(err, l.f.Close())
}
