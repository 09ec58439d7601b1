package experiment

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/store"
)

// writeLock takes the write lock of the database at path from another
// connection, as a sqlite3 shell in a transaction would, once take is
// called; release lets it go. It may be taken from any goroutine.
type writeLock struct {
	t        *testing.T
	path     string
	take     func()
	released chan struct{}
	once     sync.Once
	conn     *sql.Conn
	other    *sql.DB
}

func newWriteLock(t *testing.T, path string) *writeLock {
	l := &writeLock{t: t, path: path, released: make(chan struct{})}
	var once sync.Once
	l.take = func() { once.Do(l.hold) }
	t.Cleanup(l.release)
	return l
}

func (l *writeLock) hold() {
	var err error
	if l.other, err = sql.Open("sqlite", l.path); err == nil {
		if l.conn, err = l.other.Conn(context.Background()); err == nil {
			_, err = l.conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
		}
	}
	if err != nil {
		l.t.Errorf("taking the write lock: %v", err)
	}
}

func (l *writeLock) release() {
	l.once.Do(func() {
		if l.conn != nil {
			if _, err := l.conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				l.t.Error(err)
			}
			l.conn.Close()
			l.other.Close()
		}
	})
}

// lockedWriter is an io.Writer safe to write from several goroutines,
// which calls on, if set, with each write.
type lockedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	on  func(p []byte)
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.on != nil {
		w.on(p)
	}
	return w.buf.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// countingServer counts the requests it sees, and calls first at the
// first: the run is then past creating its experiment.
func countingServer(t *testing.T, hits *atomic.Int64, first func()) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		first()
		hits.Add(1)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func onlySpec(target string, runs int) string {
	return fmt.Sprintf(`version: 1
name: locked
variants: [{name: only, target: "%s/"}]
load: {mode: open, rates: [100], duration: 300ms}
runs: %d
seed: 3
`, target, runs)
}

// TestRunnerNotStored runs a plan into a database another connection
// keeps locked: no trial is reported done, each run measured is kept
// whole in a side file (every request the target saw is in one), the plan
// stops after the first that could not be stored, and the next Run, once
// the lock is gone, imports them and runs the rest.
func TestRunnerNotStored(t *testing.T) {
	var hits atomic.Int64
	dir := t.TempDir()
	path := filepath.Join(dir, "results.db")
	lock := newWriteLock(t, path)
	srv := countingServer(t, &hits, lock.take)
	spec := remotetest.WriteSpec(t, dir, onlySpec(srv.URL, 4))
	db := openDB(t, path)
	var lines, log lockedWriter
	r := &Runner{Spec: spec, DB: db, Trials: &lines, Log: &log, commit: retry{attempts: 2, wait: 10 * time.Millisecond, limit: 200 * time.Millisecond}}
	out, err := r.Run(context.Background())
	var ns *NotStoredError
	if !errors.As(err, &ns) {
		t.Fatalf("Run: %v, want a NotStoredError", err)
	}
	n := len(ns.Files)
	if n < 1 || n > 2 || out.NotStored != n || out.Done != 0 {
		t.Fatalf("outcome %+v with side files %v: want 1 or 2 trials measured and kept aside, none done", out, ns.Files)
	}
	if !strings.Contains(log.String(), "trying again") {
		t.Errorf("no retry logged:\n%s", log.String())
	}
	if regexp.MustCompile(`(?m)^trial \d+: .*: done`).MatchString(lines.String()) {
		t.Errorf("a trial reported done that was never stored:\n%s", lines.String())
	}
	var sent int64
	for _, f := range ns.Files {
		if !strings.Contains(lines.String(), "not stored: kept in "+f) {
			t.Errorf("no trial line names the side file %s:\n%s", f, lines.String())
		}
		side, err := store.OpenReadOnly(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		exps, err := side.Experiments(context.Background())
		if err != nil || len(exps) != 1 || exps[0].SpecHash != spec.Hash() {
			t.Fatalf("side file %s: experiments %+v, %v; want this spec's", f, exps, err)
		}
		runs, err := side.Runs(context.Background(), exps[0].ID)
		if err != nil || len(runs) != 1 || runs[0].Status != store.Done || runs[0].Summary == nil {
			t.Fatalf("side file %s: runs %+v, %v; want one done run", f, runs, err)
		}
		sent += runs[0].Summary.Sent
		side.Close()
	}
	if sent == 0 || sent != hits.Load() {
		t.Errorf("side files hold %d requests sent, the target saw %d: want every one kept", sent, hits.Load())
	}

	lock.release()
	again, err := (&Runner{Spec: spec, DB: db}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again.Skipped != n || again.Done != 4-n {
		t.Errorf("after the lock: %+v, want the %d side runs imported and skipped, %d done", again, n, 4-n)
	}
	if files, _ := store.PendingFiles(path); len(files) > 0 {
		t.Errorf("side files left after the import: %v", files)
	}
	runs, err := db.Runs(context.Background(), again.Experiment.ID)
	if err != nil || len(runs) != 4 {
		t.Fatalf("%d runs, %v; want 4", len(runs), err)
	}
	for _, r := range runs {
		if r.Status != store.Done {
			t.Errorf("run %s is %s", r.Trial, r.Status)
		}
	}
}

// TestRunnerCommitRetried holds a write lock on the database until the
// runner has failed to commit once: the commit is tried again and
// succeeds, no side file is written, and the trial's line says done only
// once its run can be read from the database.
func TestRunnerCommitRetried(t *testing.T) {
	var hits atomic.Int64
	dir := t.TempDir()
	path := filepath.Join(dir, "results.db")
	lock := newWriteLock(t, path)
	srv := countingServer(t, &hits, lock.take)
	spec := remotetest.WriteSpec(t, dir, onlySpec(srv.URL, 1))
	db := openDB(t, path)
	log := &lockedWriter{on: func(p []byte) {
		if bytes.Contains(p, []byte("trying again")) {
			lock.release()
		}
	}}
	var committed atomic.Int64 // runs readable when the done line came
	lines := &lockedWriter{on: func(p []byte) {
		if bytes.Contains(p, []byte(": done")) {
			n, _ := db.CompletedTrials(context.Background(), 1)
			committed.Store(int64(len(n)))
		}
	}}
	r := &Runner{Spec: spec, DB: db, Trials: lines, Log: log, commit: retry{attempts: 5, wait: 20 * time.Millisecond, limit: 200 * time.Millisecond}}
	out, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Done != 1 || out.NotStored != 0 {
		t.Errorf("outcome %+v, want the trial done", out)
	}
	if !strings.Contains(log.String(), "trying again") {
		t.Errorf("the first commit did not fail: the test held no lock?\n%s", log.String())
	}
	if !strings.Contains(lines.String(), ": done") || committed.Load() != 1 {
		t.Errorf("trial line %q with %d runs committed when it came; want done, after the commit", lines.String(), committed.Load())
	}
	if files, _ := store.PendingFiles(path); len(files) > 0 {
		t.Errorf("side files written: %v", files)
	}
}
