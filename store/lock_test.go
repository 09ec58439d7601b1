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
	"testing"
	"time"
)

// TestWriterLock opens a database for writing twice: the second is
// refused, naming this process, while readers still read; once the first
// is closed the lock file is gone and the database opens again.
func TestWriterLock(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	newExperiment(t, db, "held", "spec")
	before := time.Now().Truncate(time.Second)

	_, err := Open(ctx, path)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want a LockedError", err)
	}
	host, _ := os.Hostname()
	h := le.Holder
	if h.PID != os.Getpid() || h.Host != host || h.Since.Before(before.Add(-time.Minute)) || h.Since.After(time.Now()) {
		t.Errorf("holder %+v, want pid %d on %s since about %s", h, os.Getpid(), host, before)
	}
	for _, want := range []string{path, fmt.Sprintf("pid %d on %s", os.Getpid(), host)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("a reader is refused while a writer holds the lock: %v", err)
	}
	exps, err := ro.Experiments(ctx)
	if err != nil || len(exps) != 1 {
		t.Errorf("reader: %d experiments, %v; want 1", len(exps), err)
	}
	ro.Close()

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, filepath.Dir(path)); !slices.Equal(names, []string{"results.db"}) {
		t.Errorf("after Close the directory holds %v, want results.db alone", names)
	}
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	again.Close()
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestWriterLockOtherProcess holds the lock in a child process: Open is
// refused naming the child; once the child is killed with SIGKILL, with no
// chance to clean up, the database opens at once.
func TestWriterLockOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	cmd, lines := startChild(t, "TestHelperLockHolder", "LATLAB_STORE_HOLDER="+path)
	defer cmd.Process.Kill()
	for lines.Scan() && lines.Text() != "helper: holding" {
	}
	_, err := Open(context.Background(), path)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.PID != cmd.Process.Pid {
		t.Fatalf("Open while the child %d holds the lock: %v, want a LockedError naming it", cmd.Process.Pid, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(path + LockSuffix); err != nil {
		t.Fatalf("the killed child's lock file: %v; want it left behind, as a kill leaves it", err)
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open after the holder was killed: %v", err)
	}
	db.Close()
}

// TestHelperLockHolder is TestWriterLockOtherProcess's child: it opens the
// database named by $LATLAB_STORE_HOLDER and holds it until killed.
func TestHelperLockHolder(t *testing.T) {
	path := os.Getenv("LATLAB_STORE_HOLDER")
	if path == "" {
		t.Skip("runs as TestWriterLockOtherProcess's child")
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fmt.Println("helper: holding")
	time.Sleep(time.Minute)
}

// TestOpenWriteTransaction opens a database on which another connection,
// as a sqlite3 shell would, holds a write transaction: Open refuses it
// with ErrLocked, naming the file, and succeeds once it ends.
func TestOpenWriteTransaction(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	db.Close()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "write transaction") {
		t.Fatalf("Open during another connection's write transaction: %v, want ErrLocked naming %s", err, path)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("Open once the transaction ended: %v", err)
	}
	db.Close()
}
