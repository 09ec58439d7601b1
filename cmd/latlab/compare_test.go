package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// inAnalysis runs the test from the analysis package's folder, so that
// file names in the output match its golden files.
func inAnalysis(t *testing.T) {
	t.Helper()
	t.Chdir(filepath.Join("..", "..", "analysis"))
}

// wantGolden compares got with a golden file of the analysis package.
func wantGolden(t *testing.T, path, got string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("stdout differs from %s (-want +got):\n%s", path, diff)
	}
}

func TestCompareGolden(t *testing.T) {
	inAnalysis(t)
	tests := []struct {
		args   []string
		golden string
	}{
		{nil, "compare.txt"},
		{[]string{"--format", "json"}, "compare.json"},
		{[]string{"--format", "csv"}, "compare.csv"},
		{[]string{"--format", "markdown"}, "compare.md"},
		{[]string{"--holm"}, "compare-holm.txt"},
		{[]string{"--holm", "--format", "markdown"}, "compare-holm.md"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			args := append([]string{"compare", "testdata/bench/old.txt", "testdata/bench/new.txt"}, tt.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			wantGolden(t, filepath.Join("testdata", "bench", tt.golden), stdout)
		})
	}
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeIn(t, dir, "good.txt", "goos: linux\nBenchmarkX-8 10 100 ns/op\n")
	bad := writeIn(t, dir, "bad.txt", "goos: linux\nBenchmarkX-8 10 100 ns/op\nBenchmarkX-8 ten 100 ns/op\n")
	notBench := writeIn(t, dir, "notes.txt", "hello\n")
	db := writeIn(t, dir, "results.db", "SQLite format 3\x00rest")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"syntax", []string{"compare", good, bad}, bad + ":3: "},
		{"not bench", []string{"compare", notBench, good}, notBench + ":1: not go test -bench output"},
		{"database", []string{"compare", db, db}, "comparing results databases comes with latlab report"},
		{"variant", []string{"compare", db + ":plain", db + ":filter"}, db + ":plain: comparing results databases"},
		{"missing", []string{"compare", filepath.Join(dir, "nope.txt"), good}, "nope.txt"},
		{"one arg", []string{"compare", good}, "compare takes two files"},
		{"format", []string{"compare", good, good, "--format", "html"}, `--format "html"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line containing %q", stderr, tt.want)
			}
		})
	}
}
