package benchcmp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/textsafe"
)

// TestBenchEscapesControls: benchmark names and configuration lines that
// hold control characters are escaped in the text and Markdown tables.
func TestBenchEscapesControls(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, ns float64) string {
		var b strings.Builder
		b.WriteString("goos: linux\npkg: example.com/\x1b]0;owned\a\u009b[2J\n")
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkTitle\x1b]0;owned\a\x7f-8 \t 1000 \t %.1f ns/op\n", ns+float64(i))
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	c, err := CompareBench(write("old\x1b[2J.txt", 100), write("new.txt", 200), BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return c.WriteText(b) },
		"markdown": func(b *bytes.Buffer) error { return c.WriteMarkdown(b) },
	} {
		var b bytes.Buffer
		if err := w(&b); err != nil {
			t.Fatal(err)
		}
		if ch, i := textsafe.Unsafe(b.String()); i >= 0 {
			t.Errorf("%s holds %q at byte %d:\n%s", name, ch, i, b.String())
		}
		if !strings.Contains(b.String(), `Title\x1b]0;owned\a\x7f`) {
			t.Errorf("%s lacks the benchmark's name escaped:\n%s", name, b.String())
		}
	}
}
