package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/store"
)

// lockSpec is a plan of three trials of 600 ms against target.
func lockSpec(name, target string) string {
	return fmt.Sprintf(`version: 1
name: %s
variants: [{name: only, target: "%s/"}]
load: {mode: open, rates: [50], duration: 600ms}
runs: 3
`, name, target)
}

// waitLoad waits until seen counts a request more than now: the run
// sending them is past opening its database. It fails the test if the run
// ends first.
func waitLoad(t *testing.T, seen *atomic.Int64, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for n := seen.Load(); seen.Load() <= n; {
		select {
		case <-exited:
			t.Fatal("latlab run ended before it sent a request")
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("latlab run sent no request in a minute")
		}
	}
}

// start starts cmd and returns a channel closed when it has ended, with
// its error in *err.
func start(t *testing.T, cmd *exec.Cmd, err *error) <-chan struct{} {
	t.Helper()
	if e := cmd.Start(); e != nil {
		t.Fatal(e)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	done := make(chan struct{})
	go func() {
		*err = cmd.Wait()
		close(done)
	}()
	return done
}

// TestRunOneWriter runs two latlab run processes on one database: the
// second is refused with exit 2, naming the first's pid, host and start,
// and sends no load, while the first completes its plan. Then a writer
// killed with SIGKILL does not keep the next run out.
func TestRunOneWriter(t *testing.T) {
	bin := buildLatlab(t)
	var firstSeen, secondSeen atomic.Int64
	// The first run's target holds its answers until the second run has
	// been refused: the first still runs then, however slowly a busy
	// machine starts the second.
	hold := make(chan struct{})
	first := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		firstSeen.Add(1)
		<-hold
	}))
	defer first.Close()
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(hold) }) }
	defer release()
	second := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { secondSeen.Add(1) }))
	defer second.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	spec1 := writeIn(t, dir, "first.yaml", lockSpec("first", first.URL))
	spec2 := writeIn(t, dir, "second.yaml", lockSpec("second", second.URL))

	var out1 bytes.Buffer
	var err1 error
	run1 := exec.Command(bin, "run", spec1, "-o", db, "-q")
	run1.Stdout, run1.Stderr = &out1, &out1
	exited1 := start(t, run1, &err1)
	waitLoad(t, &firstSeen, exited1)

	var stdout2, stderr2 bytes.Buffer
	run2 := exec.Command(bin, "run", spec2, "-o", db, "-q")
	run2.Stdout, run2.Stderr = &stdout2, &stderr2
	code := exitCode(t, run2.Run())
	host, _ := os.Hostname()
	checkUsageError(t, code, stdout2.String(), stderr2.String(), db, "locked by another writer",
		fmt.Sprintf("pid %d on %s", run1.Process.Pid, host), "since", "run "+spec1)
	if n := secondSeen.Load(); n != 0 {
		t.Errorf("the refused run sent %d requests", n)
	}

	release()
	<-exited1
	if err1 != nil {
		t.Fatalf("the first run: %v\n%s", err1, out1.String())
	}
	if got := runsByExperiment(t, db); got != "first:3" {
		t.Errorf("runs by experiment %q, want the first's 3 only", got)
	}

	// A writer killed with SIGKILL leaves its lock file, but not its lock.
	var err3 error
	run3 := exec.Command(bin, "run", spec2, "-o", db, "-q")
	exited3 := start(t, run3, &err3)
	waitLoad(t, &secondSeen, exited3)
	run3.Process.Kill()
	<-exited3
	if _, err := os.Stat(db + store.LockSuffix); err != nil {
		t.Fatalf("the killed run's lock file: %v, want it left", err)
	}
	if out, err := exec.Command(bin, "run", spec2, "-o", db, "-q").CombinedOutput(); err != nil {
		t.Fatalf("the run after a killed one: %v\n%s", err, out)
	}
	if got := runsByExperiment(t, db); got != "first:3 second:3" {
		t.Errorf("runs by experiment %q, want 3 of each", got)
	}
}

// runsByExperiment returns "name:runs" of every experiment in db with a
// done run, by name.
func runsByExperiment(t *testing.T, db string) string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT e.name, count(*) FROM runs r JOIN experiments e ON e.id = r.experiment_id
		WHERE r.status = 'done' GROUP BY e.name ORDER BY e.name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, fmt.Sprintf("%s:%d", name, n))
	}
	return strings.Join(parts, " ")
}

// holdWriteLock takes the write lock of the database at path from another
// connection, as a sqlite3 shell in a transaction would, and returns the
// function that lets it go. It may be called from any goroutine.
func holdWriteLock(t *testing.T, path string) (release func()) {
	other, err := sql.Open("sqlite", path)
	var conn *sql.Conn
	if err == nil {
		if conn, err = other.Conn(context.Background()); err == nil {
			_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
		}
	}
	if err != nil {
		t.Errorf("taking the write lock of %s: %v", path, err)
		return func() {}
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			other.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// lockingServer returns a test server that takes the write lock of the
// database at db, with holdWriteLock, on its first request, and the
// function that lets the lock go once that request has taken it.
func lockingServer(t *testing.T, db string) (srv *httptest.Server, release func()) {
	var once sync.Once
	var held func()
	srv = httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		once.Do(func() { held = holdWriteLock(t, db) })
	}))
	return srv, func() {
		once.Do(func() {}) // held is set
		held()
	}
}

// TestWriteLockedDatabase runs latlab run, resuming a plan with a trial
// to go, and latlab attack -o into a database on which another connection
// holds a write transaction: each exits 2 before sending any load, naming
// the file.
func TestWriteLockedDatabase(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	spec := writeIn(t, dir, "spec.yaml", lockSpec("locked", srv.URL))
	if code, _, stderr := runCLI(t, "run", spec, "-o", db, "-q"); code != exitOK {
		t.Fatalf("the first run: exit %d: %s", code, stderr)
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(`DELETE FROM runs WHERE id = (SELECT max(id) FROM runs)`)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	holdWriteLock(t, db)
	hits.Store(0)
	for _, args := range [][]string{
		{"run", spec, "-o", db, "-q"},
		{"attack", srv.URL, "-n", "20", "-o", db},
	} {
		code, stdout, stderr := runCLI(t, args...)
		checkUsageError(t, code, stdout, stderr, db, "locked by another writer", "write transaction")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent into a database that cannot be written", n)
	}
}

// TestRunDoneOnceCommitted holds a write lock on the database from the
// first request of a run until latlab run says it tries the commit again:
// the trial's line on stdout says done only once its run is in the
// database, and the run ends well with every trial stored.
func TestRunDoneOnceCommitted(t *testing.T) {
	bin := buildLatlab(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	srv, release := lockingServer(t, db)
	defer srv.Close()
	spec := writeIn(t, dir, "spec.yaml", strings.Replace(lockSpec("retried", srv.URL), "runs: 3", "runs: 1", 1))
	cmd := exec.Command(bin, "run", spec, "-o", db, "-q")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var runErr error
	exited := start(t, cmd, &runErr)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if strings.Contains(lines.Text(), "trying again") {
				release()
			}
		}
	}()
	var out []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		out = append(out, lines.Text())
		if !strings.HasPrefix(lines.Text(), "trial 1:") {
			continue
		}
		ro, err := store.OpenReadOnly(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		done, err := ro.CompletedTrials(t.Context(), 1)
		ro.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n := len(done); !strings.Contains(lines.Text(), ": done") || n != 1 {
			t.Errorf("trial line %q came with %d runs committed; want done, once committed", lines.Text(), n)
		}
	}
	<-exited
	if runErr != nil {
		t.Errorf("latlab run: %v\n%s", runErr, strings.Join(out, "\n"))
	}
}

// TestAttackKeepsUnstoredRun locks the database under latlab attack -o
// once its load has begun: the attack exits 1 naming the side file that
// keeps its run, and the next attack into the file imports it.
func TestAttackKeepsUnstoredRun(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the store's busy timeout; make test runs it")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	srv, release := lockingServer(t, db)
	defer srv.Close()
	code, _, stderr := runCLI(t, "attack", srv.URL, "-n", "20", "-c", "1", "-o", db)
	release()
	files, err := store.PendingFiles(db)
	if err != nil || len(files) != 1 {
		t.Fatalf("side files %v, %v; want one", files, err)
	}
	if code != exitFailure || !strings.Contains(stderr, "kept in "+files[0]) {
		t.Errorf("exit %d, stderr %q; want %d naming %s", code, stderr, exitFailure, files[0])
	}
	code, _, stderr = runCLI(t, "attack", srv.URL, "-n", "10", "-c", "1", "-o", db)
	if code != exitOK || !strings.Contains(stderr, "imported 1 runs") {
		t.Fatalf("the next attack: exit %d, stderr %q; want 0 and the import said", code, stderr)
	}
	if files, _ := store.PendingFiles(db); len(files) > 0 {
		t.Errorf("side files left: %v", files)
	}
	ro, err := store.OpenReadOnly(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	exps, err := ro.Experiments(t.Context())
	if err != nil || len(exps) != 2 {
		t.Fatalf("%d experiments, %v; want both attacks", len(exps), err)
	}
	var requests []int64
	for _, e := range exps {
		runs, err := ro.Runs(t.Context(), e.ID)
		if err != nil || len(runs) != 1 {
			t.Fatalf("experiment %d: %d runs, %v", e.ID, len(runs), err)
		}
		requests = append(requests, runs[0].Summary.Requests)
	}
	if requests[0]+requests[1] != 30 {
		t.Errorf("runs of %v requests, want 20 and 10", requests)
	}
}
