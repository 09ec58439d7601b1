package benchcmp

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/analysis"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/latlab/latlab/internal/golden"
)

const (
	benchOld = "testdata/bench/old.txt"
	benchNew = "testdata/bench/new.txt"
)

// checkGolden compares got with testdata/name (see golden.Check).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func TestBenchGolden(t *testing.T) {
	for _, holm := range []bool{false, true} {
		c, err := CompareBench(benchOld, benchNew, BenchOptions{Holm: holm})
		if err != nil {
			t.Fatal(err)
		}
		suffix := ""
		if holm {
			suffix = "-holm"
		}
		for _, f := range []struct {
			ext   string
			write func(*bytes.Buffer) error
		}{
			{".txt", func(b *bytes.Buffer) error { return c.WriteText(b) }},
			{".json", func(b *bytes.Buffer) error { return c.WriteJSON(b) }},
			{".csv", func(b *bytes.Buffer) error { return c.WriteCSV(b) }},
			{".md", func(b *bytes.Buffer) error { return c.WriteMarkdown(b) }},
		} {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "bench/compare"+suffix+f.ext, b.Bytes())
		}
	}
}

// samples reads path and returns the values per row name and unit, as
// benchstat groups them.
func samples(t *testing.T, path string) map[[2]string][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[[2]string][]float64{}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, v := range res.Values {
			k := [2]string{string(res.Name.Full()), v.Unit}
			out[k] = append(out[k], v.Value)
		}
	}
	return out
}

// TestBenchAgreesWithBenchmath recomputes every row with benchmath
// directly and asserts the same center, interval and p-value.
func TestBenchAgreesWithBenchmath(t *testing.T) {
	c, err := CompareBench(benchOld, benchNew, BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	olds, news := samples(t, benchOld), samples(t, benchNew)
	rows := 0
	for _, tab := range c.Tables {
		for _, r := range tab.Rows {
			k := [2]string{r.Name, tab.Unit}
			so := benchmath.NewSample(olds[k], &benchmath.DefaultThresholds)
			sn := benchmath.NewSample(news[k], &benchmath.DefaultThresholds)
			wo := benchmath.AssumeNothing.Summary(so, 0.95)
			wn := benchmath.AssumeNothing.Summary(sn, 0.95)
			cmpr := benchmath.AssumeNothing.Compare(so, sn)
			got := []float64{r.Old.Center, r.Old.Lo, r.Old.Hi, r.New.Center, r.New.Lo, r.New.Hi, r.P}
			want := []float64{wo.Center, wo.Lo, wo.Hi, wn.Center, wn.Lo, wn.Hi, cmpr.P}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s (-benchmath +latlab):\n%s", r.Name, tab.Unit, diff)
			}
			if wantD := cmpr.FormatDelta(wo.Center, wn.Center); r.Delta != wantD {
				t.Errorf("%s %s: delta %q, benchmath %q", r.Name, tab.Unit, r.Delta, wantD)
			}
			rows++
		}
	}
	if rows != 20 {
		t.Errorf("compared %d rows, want 20 (5 benchmarks × 4 units)", rows)
	}
}

// TestBenchAgreesWithBenchstat runs benchstat, when installed, and
// compares its table with ours once latlab's CI column is removed.
func TestBenchAgreesWithBenchstat(t *testing.T) {
	bin := os.Getenv("BENCHSTAT")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("benchstat"); err != nil {
			t.Skip("benchstat not installed; set BENCHSTAT or put it on PATH")
		}
	}
	want, err := exec.Command(bin, benchOld, benchNew).Output()
	if err != nil {
		t.Fatalf("benchstat: %v", err)
	}
	c, err := CompareBench(benchOld, benchNew, BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	c.WriteText(&b)
	if diff := cmp.Diff(benchstatShape(string(want)), benchstatShape(b.String())); diff != "" {
		t.Errorf("latlab differs from benchstat (-benchstat +latlab):\n%s", diff)
	}
}

// benchstatShape drops latlab's delta-CI column and footer and all
// runs of spaces and box lines, leaving the words of each line.
func benchstatShape(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "delta CI:") {
			continue
		}
		if i := strings.Index(line, ") ["); i >= 0 {
			line = line[:i+1]
		}
		line = strings.NewReplacer("│", " ").Replace(line)
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, strings.Join(f, " "))
		}
	}
	return out
}

func TestHolmAdjust(t *testing.T) {
	got := analysis.Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Error(diff)
	}
}

func TestCompareBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("goos: linux\nBenchmarkX-8 10 100 ns/op\nBenchmarkY-8 ten 100 ns/op\n"), 0o600)
	_, err := CompareBench(benchOld, bad, BenchOptions{})
	if err == nil || !strings.Contains(err.Error(), bad+":3:") {
		t.Errorf("got %v, want an error naming %s:3", err, bad)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("goos: linux\n"), 0o600)
	if _, err := CompareBench(empty, benchNew, BenchOptions{}); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("got %v, want an error naming %s", err, empty)
	}
}

func FuzzParseBench(f *testing.F) {
	for _, p := range []string{benchOld, "testdata/scale/exporter.txt"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("BenchmarkX 1 2 ns/op\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseBench(bytes.NewReader(data), "fuzz")
		ParseScale(bytes.NewReader(data), "fuzz")
	})
}

// TestBenchGeomeanOfZeros checks the geomean row of a table with a zero
// summary: benchstat leaves the cells empty and says why, never NaN.
func TestBenchGeomeanOfZeros(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for range 6 {
		b.WriteString("BenchmarkA-2\t1000\t10.0 ns/op\t0 allocs/op\nBenchmarkB-2\t1000\t20.0 ns/op\t3 allocs/op\n")
	}
	var paths []string
	for _, name := range []string{"old.txt", "new.txt"} {
		paths = append(paths, filepath.Join(dir, name))
		if err := os.WriteFile(paths[len(paths)-1], []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := CompareBench(paths[0], paths[1], BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "NaN") || !strings.Contains(out.String(), "note: geomean: summaries must be >0 to compute geomean") {
		t.Errorf("geomean of a zero summary: want empty cells and benchstat's note, got:\n%s", out.String())
	}
}
