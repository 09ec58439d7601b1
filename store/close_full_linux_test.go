package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCloseFullDisk fills the disk under a database before it closes: the
// write-ahead log cannot be folded back, and Close says so, naming both
// files, which must stay together; with them together the results are
// all there.
func TestCloseFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a small file system of its own (tmpfs) takes root")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("mounting a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	ctx := context.Background()
	path := filepath.Join(dir, "d.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		newExperiment(t, db, "x"+strings.Repeat("y", i), "spec")
	}
	// Whatever room is left goes to a file of its own.
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	err = db.Close()
	if err == nil {
		if fi, serr := os.Stat(path + "-wal"); serr == nil && fi.Size() > 0 {
			t.Fatalf("Close = nil with %d bytes of write-ahead log left beside the file", fi.Size())
		}
		t.Skip("the checkpoint found room: nothing to report")
	}
	for _, w := range []string{path + "-wal", "keep the two files together", "d.db alone lacks"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Close: %v; want it to say %q", err, w)
		}
	}
	// Room again: the two together hold every experiment.
	os.Remove(filepath.Join(dir, "filler"))
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	exps, err := ro.Experiments(ctx)
	if err != nil || len(exps) != 40 {
		t.Errorf("experiments after reopening: %d, %v; want 40", len(exps), err)
	}
}
