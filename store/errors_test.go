package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sqliteCode matches the "(26)" the driver appends to SQLite's messages.
var sqliteCode = regexp.MustCompile(`\(\d+\)`)

// wantErr fails t unless err is target and its message names path.
func wantErr(t *testing.T, err, target error, path string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v; want %v", err, target)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
}

// TestOpenRefuses opens files that are not latlab databases, or not ones
// this code may use, and checks each is refused clearly and left as it was.
func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		setup  func(t *testing.T, path string) // makes path
		want   error
		substr string
	}{
		{"text file", func(t *testing.T, path string) {
			writeFile(t, path, strings.Repeat("variant,rate,p99\nplain,100,0.004\n", 100))
		}, ErrNotDatabase, "not a latlab results database: not a SQLite file"},
		{"short text file", func(t *testing.T, path string) { writeFile(t, path, "hello\n") }, ErrNotDatabase, ""},
		{"another program's SQLite database", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err == nil {
				_, err = db.Exec(`CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann')`)
				db.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		}, ErrNotDatabase, "another program's SQLite database"},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, ErrNotDatabase, "not a latlab results database: a directory"},
		{"newer format", func(t *testing.T, path string) {
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.w.Exec(`UPDATE meta SET value = '99' WHERE key = 'format_version'`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}, ErrTooNew, fmt.Sprintf("format version 99, but this latlab reads up to %d", FormatVersion)},
	}
	for _, tt := range tests {
		for _, readOnly := range []bool{false, true} {
			name := tt.name
			if readOnly {
				name += " read-only"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "results.db")
				tt.setup(t, path)
				before := snapshot(t, dir)
				open := Open
				if readOnly {
					open = OpenReadOnly
				}
				db, err := open(ctx, path)
				if err == nil {
					db.Close()
				}
				wantErr(t, err, tt.want, path)
				if !strings.Contains(err.Error(), tt.substr) {
					t.Errorf("error %q does not say %q", err, tt.substr)
				}
				if sqliteCode.MatchString(err.Error()) {
					t.Errorf("error %q carries SQLite's result code", err)
				}
				if after := snapshot(t, dir); after != before {
					t.Errorf("the directory changed:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

func TestOpenMissing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "no-such-dir", "results.db")
	_, err := Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "no-such-dir") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open in a missing directory: %v", err)
	}
	path = filepath.Join(t.TempDir(), "results.db")
	_, err = OpenReadOnly(ctx, path)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("OpenReadOnly of a missing file: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenReadOnly created %s", path)
	}
}

// TestWriteReadOnly checks that a DB opened read-only refuses writes.
func TestWriteReadOnly(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	exp := newExperiment(t, db, "x", "x")
	db.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.CreateExperiment(ctx, Experiment{Name: "y"})
	wantErr(t, err, ErrReadOnly, path)
	_, err = ro.WriteRun(ctx, exp.ID, info(Trial{Variant: "a"}, 0), nil, nil, nil, nil)
	wantErr(t, err, ErrReadOnly, path)
}

// TestReadOnlyFile opens a database whose file and directory the process
// may not write. Root may write anything, so as root the checks run in a
// child process of user nobody.
func TestReadOnlyFile(t *testing.T) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "latlab-store-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	path := filepath.Join(dir, "results.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	newExperiment(t, db, "x", "x")
	db.Close()
	for _, c := range []struct {
		name string
		mode os.FileMode
	}{{path, 0o444}, {dir, 0o555}} {
		if err := os.Chmod(c.name, c.mode); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() != 0 {
		checkReadOnly(t, path)
		return
	}
	// The test binary's own directory is private; copy it where nobody may
	// run it.
	bin := filepath.Join(dir+"-bin", "store.test")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(bin)) })
	copyFile(t, os.Args[0], bin, 0o755)
	cmd := exec.Command(bin, "-test.run=^TestHelperReadOnly$", "-test.v")
	cmd.Env = append(os.Environ(), "LATLAB_STORE_READONLY="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHelperReadOnly") {
		t.Errorf("checks as user nobody: %v\n%s", err, out)
	}
}

// TestHelperReadOnly is TestReadOnlyFile's child process.
func TestHelperReadOnly(t *testing.T) {
	path := os.Getenv("LATLAB_STORE_READONLY")
	if path == "" {
		t.Skip("runs as TestReadOnlyFile's child")
	}
	checkReadOnly(t, path)
}

func checkReadOnly(t *testing.T, path string) {
	ctx := context.Background()
	_, err := Open(ctx, path)
	wantErr(t, err, ErrReadOnly, path)
	t.Logf("Open: %v", err)
	fresh := filepath.Join(filepath.Dir(path), "new.db")
	_, err = Open(ctx, fresh)
	wantErr(t, err, ErrReadOnly, fresh)
	t.Logf("Open new: %v", err)
	db, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exps, err := db.Experiments(ctx)
	if err != nil || len(exps) != 1 {
		t.Errorf("experiments of a read-only file: %v, %v", exps, err)
	}
}

// TestDiskFull fills the database (SQLite's page limit stands in for the
// disk) in the middle of a run: the write fails with ErrFull and leaves the
// file whole, earlier runs in place and no part of the failed one.
func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	exp := newExperiment(t, db, "x", "x")
	res := recorded(t, time.Now(), 2000, 6)
	if _, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Rep: 1}, 0), res, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	pages := count(t, db, `PRAGMA page_count`)
	if _, err := db.w.ExecContext(ctx, `PRAGMA max_page_count = `+strconv.FormatInt(pages+5, 10)); err != nil {
		t.Fatal(err)
	}
	_, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Rep: 2}, 1), res, nil, nil, nil)
	wantErr(t, err, ErrFull, path)
	t.Log(err)
	db.Close()
	if n := checkWhole(t, path); n != 1 {
		t.Errorf("%d runs after the failed write, want 1", n)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// snapshot describes the files in dir: names and contents' hash. It leaves
// out the write-ahead log and its index, which a reader of a database in
// WAL mode may create.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") {
			return err
		}
		data, err := os.ReadFile(p)
		b.WriteString(filepath.Base(p) + ":" + SpecHash(string(data))[:12] + " ")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
