package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testLog writes a log of the lines, a second apart from t0, the second
// one split in two pieces, and closes it.
func testLog(t *testing.T, t0 time.Time) *logFile {
	t.Helper()
	l, err := newLogFile(filepath.Join(t.TempDir(), "0.log"))
	if err != nil {
		t.Fatal(err)
	}
	l.record(t0, "stdout", false, []byte("first"))
	l.record(t0.Add(time.Second), "stderr", true, []byte("sec"))
	l.record(t0.Add(time.Second), "stderr", false, []byte("ond"))
	l.record(t0.Add(2*time.Second), "stdout", false, []byte("third line"))
	l.close()
	return l
}

func TestWriteLog(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		opt  logOptions
		want string
	}{
		{"all", logOptions{tail: -1}, "first\nsecond\nthird line\n"},
		{"tail 1", logOptions{tail: 1}, "third line\n"},
		{"tail 2", logOptions{tail: 2}, "second\nthird line\n"},
		{"tail 0", logOptions{tail: 0}, ""},
		{"tail more than all", logOptions{tail: 10}, "first\nsecond\nthird line\n"},
		{"limit", logOptions{tail: -1, limit: 9}, "first\nsec"},
		{"limit at a line's end", logOptions{tail: -1, limit: 6}, "first\n"},
		{"since", logOptions{tail: -1, since: t0.Add(time.Second)}, "second\nthird line\n"},
		{"timestamps", logOptions{tail: 1, timestamps: true}, "2026-05-01T10:00:02Z third line\n"},
		{"follow a closed log", logOptions{tail: -1, follow: true}, "first\nsecond\nthird line\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeLog(&b, func() {}, testLog(t, t0), tc.opt, nil); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteLogFollow follows a log while lines come, until it closes.
func TestWriteLogFollow(t *testing.T) {
	l, err := newLogFile(filepath.Join(t.TempDir(), "0.log"))
	if err != nil {
		t.Fatal(err)
	}
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- writeLog(w, func() {}, l, logOptions{tail: -1, follow: true}, nil); w.Close() }()
	go l.copyFrom("stdout", strings.NewReader("one\ntwo\n"))
	got := make([]byte, len("one\ntwo\n"))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != "one\ntwo\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	l.record(time.Now(), "stdout", false, []byte("three"))
	l.close()
	rest, _ := io.ReadAll(r)
	if string(rest) != "three\n" {
		t.Errorf("after the first lines, read %q, want %q", rest, "three\n")
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestCopyFromLongLine splits a line longer than a record into pieces
// that read back as the line.
func TestCopyFromLongLine(t *testing.T) {
	l, err := newLogFile(filepath.Join(t.TempDir(), "0.log"))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 3*maxRecord/2)
	l.copyFrom("stdout", strings.NewReader(long+"\nend"))
	l.close()
	raw, err := os.ReadFile(l.path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw, []byte(" stdout P ")); n != 1 {
		t.Errorf("%d partial records, want 1", n)
	}
	var b bytes.Buffer
	if err := writeLog(&b, func() {}, l, logOptions{tail: -1}, nil); err != nil {
		t.Fatal(err)
	}
	if want := long + "\nend\n"; b.String() != want {
		t.Errorf("read back %d bytes, want %d", b.Len(), len(want))
	}
}

func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{
		"2026-05-01T10:00:00.123456789Z stdout F hello",
		"2026-05-01T10:00:00Z stderr P ",
		"2026-05-01T10:00:00Z stdout F",
		"garbage",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseRecord([]byte(line))
		if err != nil {
			return
		}
		if r.stream != "stdout" && r.stream != "stderr" {
			t.Errorf("stream %q", r.stream)
		}
		if !strings.HasSuffix(line, string(r.content)) {
			t.Errorf("content %q is not the line's end", r.content)
		}
	})
}
