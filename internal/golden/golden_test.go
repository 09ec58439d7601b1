package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "out.txt")
	r := &recorder{TB: t}
	Check(r, path, []byte("x\n"))
	if !r.failed {
		t.Error("Check passed without a golden file")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("x\n"))
	if r.failed {
		t.Error("Check failed on equal content")
	}
	Check(r, path, []byte("y\n"))
	if !r.failed {
		t.Error("Check passed on different content")
	}
}

func TestUpdate(t *testing.T) {
	*update = true
	defer func() { *update = false }()
	path := filepath.Join(t.TempDir(), "b", "out.txt")
	Check(t, path, []byte("z\n"))
	if b, err := os.ReadFile(path); err != nil || string(b) != "z\n" {
		t.Errorf("with -update, the file holds %q (%v); want the output", b, err)
	}
}
