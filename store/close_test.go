package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestCloseLeavesOnlyTheFile opens a database for writing and then for
// reading, and checks that each clean Close leaves the file alone in its
// directory: the write-ahead log and its index are gone, their content in
// the file.
func TestCloseLeavesOnlyTheFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "results.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	newExperiment(t, db, "x", "x")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wantOnly(t, dir, "after Open and Close")
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	exps, err := ro.Experiments(ctx)
	if err != nil || len(exps) != 1 {
		t.Fatalf("experiments: %v, %v", exps, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	wantOnly(t, dir, "after OpenReadOnly and Close")
}

// wantOnly fails t unless dir holds only results.db.
func wantOnly(t *testing.T, dir, when string) {
	t.Helper()
	if names := dirNames(t, dir); !slices.Equal(names, []string{"results.db"}) {
		t.Errorf("%s the directory holds %v; want only results.db", when, names)
	}
}
