package main

import (
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// notLatlab makes, in dir, one file of each kind that is not a latlab
// results database, and returns their paths by what they are.
func notLatlab(t *testing.T, dir string) map[string]string {
	t.Helper()
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err == nil {
		_, err = db.Exec(`CREATE TABLE users (name TEXT)`)
		db.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.db")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"not a SQLite file": writeIn(t, dir, "notdb.db", "variant,rate,p99\nplain,100,0.004\n"),
		"another program's": other,
		"a directory":       folder,
		"the file is empty": writeIn(t, dir, "empty.db", ""),
		"no such file":      filepath.Join(dir, "missing.db"),
	}
}

// TestDatabaseNotLatlab gives every command that opens a results database
// a file that is not one: each says so in one line naming the file and what
// it is, without SQLite's result code, and exits 2. A writer creates a
// missing or empty file, so those two are bad input to readers only.
func TestDatabaseNotLatlab(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	spec := writeIn(t, dir, "spec.yaml", sloSpec(srv.URL, ""))
	files := notLatlab(t, dir)
	commands := []struct {
		name   string
		writes bool
		args   func(path string) []string
	}{
		{"report", false, func(p string) []string { return []string{"report", p} }},
		{"ls", false, func(p string) []string { return []string{"ls", p} }},
		{"compare", false, func(p string) []string { return []string{"compare", p, p} }},
		{"run -o", true, func(p string) []string { return []string{"run", spec, "-o", p, "-q"} }},
		{"attack -o", true, func(p string) []string { return []string{"attack", srv.URL, "-n", "1", "-o", p} }},
	}
	code := regexp.MustCompile(`\(\d+\)`)
	for _, c := range commands {
		for what, path := range files {
			if c.writes && (what == "the file is empty" || what == "no such file") {
				continue
			}
			want := what
			if c.name == "compare" && (what == "the file is empty" || what == "not a SQLite file") {
				// compare also reads go test -bench output, and says so.
				want = "not go test -bench output"
			}
			t.Run(c.name+"/"+what, func(t *testing.T) {
				exit, stdout, stderr := runCLI(t, c.args(path)...)
				checkUsageError(t, exit, stdout, stderr, path, want)
				if code.MatchString(stderr) {
					t.Errorf("stderr %q carries SQLite's result code", stderr)
				}
			})
		}
	}
}

// TestDatabaseCleanExit runs every command that opens a results database
// and checks that after each one exits the database is alone in its
// directory: no write-ahead log (-wal) or index (-shm) is left beside it.
func TestDatabaseCleanExit(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	specDir := t.TempDir()
	spec := writeIn(t, specDir, "spec.yaml", strings.Replace(sloSpec(srv.URL, ""), "requests: 1000", "requests: 50", 1))
	dir := t.TempDir()
	path := filepath.Join(dir, "results.db")
	for _, args := range [][]string{
		{"attack", srv.URL, "-n", "20", "-o", path},
		{"run", spec, "-o", path, "-q"},
		{"ls", path},
		{"report", path},
		{"report", path, "--format", "json"},
		{"compare", path + ":plain", path + ":plain"},
	} {
		exit, _, stderr := runCLI(t, args...)
		if exit != exitOK && !(args[0] == "compare" && exit == exitUsage) {
			t.Fatalf("latlab %s: exit %d, stderr %q", strings.Join(args, " "), exit, stderr)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"results.db"}) {
			t.Errorf("after latlab %s the directory holds %v; want only results.db", strings.Join(args, " "), names)
		}
	}
}
