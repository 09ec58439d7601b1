package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/benchcmp"
	"github.com/latlab/latlab/internal/golden"
)

// inBenchcmp runs the test from the benchcmp package's folder, so that
// file names in the output match its golden files.
func inBenchcmp(t *testing.T) {
	t.Helper()
	t.Chdir(filepath.Join("..", "..", "benchcmp"))
}

// checkGolden compares got with the file at path (see golden.Check): the
// benchcmp package's golden files too, which its own tests write from
// the same tables.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

func TestCompareGolden(t *testing.T) {
	inBenchcmp(t)
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
			checkGolden(t, filepath.Join("testdata", "bench", tt.golden), stdout)
		})
	}
}

// filterTuned is a later experiment than filterExp in results.db, with a
// filter 10 µs slower than plain at 100/s only.
var filterTuned = compareExp{
	name:     "filter-tuned",
	variants: []string{"plain", "filter"},
	base:     map[string]time.Duration{"plain": 200 * time.Microsecond, "filter": 210 * time.Microsecond},
	rates:    []float64{100},
	reps:     6,
}

// afterExp has a faster filter than filterExp, a proxy, and a level more.
var afterExp = compareExp{
	name:     "filter-overhead",
	variants: []string{"plain", "filter", "proxy"},
	base: map[string]time.Duration{"plain": 200 * time.Microsecond, "filter": 220 * time.Microsecond,
		"proxy": 300 * time.Microsecond},
	rates: []float64{100, 200, 400},
	reps:  6,
}

// soloExp has one variant, attack, at one rate.
func soloExp(name string, base time.Duration) compareExp {
	return compareExp{name: "attack", variants: []string{name}, base: map[string]time.Duration{name: base}, rates: []float64{100}, reps: 6}
}

// compareDBs are the databases of the tests below: same.db is a copy of
// before.db, and results.db holds before.db's experiment, then another.
var compareDBs = []compareDB{
	{name: "before.db", exps: []compareExp{filterExp}},
	{name: "same.db", from: "before.db"},
	{name: "results.db", from: "before.db", exps: []compareExp{filterTuned}},
	{name: "after.db", exps: []compareExp{afterExp}},
	{name: "one.db", exps: []compareExp{soloExp("attack", 200*time.Microsecond)}},
	{name: "two.db", exps: []compareExp{soloExp("attack-h2", 150*time.Microsecond)}},
}

// TestCompareDB runs every test of compare on databases in one folder
// of them, written once: under -race they take seconds to write.
func TestCompareDB(t *testing.T) {
	testdata := inCompareDir(t, compareDBs)
	t.Run("golden", func(t *testing.T) { testCompareDBGolden(t, testdata) })
	t.Run("numbers", testCompareDBNumbers)
	t.Run("json shape", testCompareJSONShape)
	t.Run("examples", testCompareExamples)
}

// testCompareDBGolden compares stdout with golden files in testdata.
func testCompareDBGolden(t *testing.T, testdata string) {
	variants := []string{"results.db:plain", "results.db:filter", "--experiment", "filter-overhead"}
	tests := []struct {
		golden string
		args   []string
	}{
		{"compare-variants.txt", variants},
		{"compare-variants.json", append(variants, "--format", "json")},
		{"compare-variants.csv", append(variants, "--format", "csv")},
		{"compare-variants.md", append(variants, "--format", "markdown")},
		{"compare-variants-holm.txt", append(variants, "--holm")},
		{"compare-variants-flagged.txt", append(variants, "--include-flagged")},
		{"compare-latest.txt", []string{"results.db:plain", "results.db:filter"}},
		{"compare-identical.txt", []string{"before.db", "same.db"}},
		{"compare-databases.txt", []string{"before.db", "after.db"}},
		{"compare-variant-of-two.txt", []string{"before.db:filter", "after.db:filter"}},
		{"compare-single.txt", []string{"one.db", "two.db"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"compare"}, tt.args...)...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			checkGolden(t, filepath.Join(testdata, tt.golden), stdout)
		})
	}
}

// compareJSON runs latlab compare args --format json, which must
// succeed, and decodes its output.
func compareJSON(t *testing.T, args ...string) benchcmp.BenchComparison {
	t.Helper()
	code, stdout, stderr := runCLI(t, append(append([]string{"compare"}, args...), "--format", "json")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("compare %s: exit %d, stderr %q; want 0 and nothing", strings.Join(args, " "), code, stderr)
	}
	var c benchcmp.BenchComparison
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// testCompareDBNumbers asserts what the golden files show: filter is
// about 50 µs slower than plain everywhere, significantly; a database
// against its copy differs nowhere.
func testCompareDBNumbers(t *testing.T) {
	c := compareJSON(t, "results.db:plain", "results.db:filter", "--experiment", "filter-overhead")
	for _, tab := range c.Tables {
		for _, r := range tab.Rows {
			// 50 µs on a p50 of about 237 µs; less on the higher percentiles.
			lo, hi := 0.04, 0.3
			if !r.Compared || !r.Significant || !strings.HasPrefix(r.Delta, "+") || r.Ratio < 1+lo || r.Ratio > 1+hi ||
				!r.HasRatioCI || r.RatioLo < 1 {
				t.Errorf("%s %s: delta %s (p=%.3f), ratio %.3f [%.3f, %.3f]; want significant, between +%.0f%% and +%.0f%%, CI above 0",
					tab.Config, r.Name, r.Delta, r.P, r.Ratio, r.RatioLo, r.RatioHi, lo*100, hi*100)
			}
			if shift := r.New.Center - r.Old.Center; shift < 30e-6 || shift > 70e-6 {
				t.Errorf("%s %s: medians %g s and %g s, want 50 µs apart", tab.Config, r.Name, r.Old.Center, r.New.Center)
			}
		}
	}
	if got := c.Tables[0].Rows[1].New.N; got != 5 {
		t.Errorf("filter at 200/s: %d runs, want 5: the flagged run is left out", got)
	}

	c = compareJSON(t, "before.db", "same.db")
	rows := 0
	for _, tab := range c.Tables {
		for _, r := range tab.Rows {
			if r.Delta != "~" || r.P != 1 || r.Ratio != 1 || r.Significant {
				t.Errorf("%s %s: delta %s (p=%g), ratio %g; want ~, p=1, ratio 1", tab.Config, r.Name, r.Delta, r.P, r.Ratio)
			}
			rows++
		}
	}
	if rows != 16 {
		t.Errorf("%d rows, want 16 (4 percentiles × 2 variants × 2 rates)", rows)
	}
}

// testCompareJSONShape pins the keys of compare's JSON for databases.
func testCompareJSONShape(t *testing.T) {
	code, stdout, _ := runCLI(t, "compare", "before.db", "after.db", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Old, New string
		Tables   []map[string]json.RawMessage
		Notes    []string
	}
	var top map[string]json.RawMessage
	for _, v := range []any{&doc, &top} {
		if err := json.Unmarshal([]byte(stdout), v); err != nil {
			t.Fatal(err)
		}
	}
	type shape struct {
		Keys, TableKeys, RowKeys, Units, Configs, Rows, Notes []string
		Old, New                                              string
	}
	got := shape{Keys: slices.Sorted(maps.Keys(top)), TableKeys: slices.Sorted(maps.Keys(doc.Tables[0])), Old: doc.Old, New: doc.New, Notes: doc.Notes}
	for _, tab := range doc.Tables {
		var unit string
		var config, rows []string
		var rowMaps []map[string]json.RawMessage
		for k, v := range map[string]any{"unit": &unit, "config": &config, "rows": &rowMaps} {
			if err := json.Unmarshal(tab[k], v); err != nil {
				t.Fatal(k, err)
			}
		}
		for _, r := range rowMaps {
			var name string
			json.Unmarshal(r["name"], &name)
			rows = append(rows, name)
		}
		got.RowKeys = slices.Sorted(maps.Keys(rowMaps[0]))
		got.Units, got.Configs, got.Rows = append(got.Units, unit), append(got.Configs, config...), rows
	}
	want := shape{
		Keys:      []string{"alpha", "holm", "new", "notes", "old", "tables"},
		TableKeys: []string{"config", "geomean", "rows", "unit"},
		RowKeys: []string{"compared", "delta", "has_ratio_ci", "name", "new", "old", "p", "p_adjusted",
			"ratio", "ratio_hi", "ratio_lo", "significant"},
		Units: []string{"sec", "sec", "sec", "sec"},
		Configs: []string{
			"experiment: filter-overhead", "latency: p50 (from intended send)",
			"experiment: filter-overhead", "latency: p90 (from intended send)",
			"experiment: filter-overhead", "latency: p99 (from intended send)",
			"experiment: filter-overhead", "latency: p99.9 (from intended send)",
		},
		Rows: []string{"plain/rate=100/s c=64", "plain/rate=200/s c=64", "filter/rate=100/s c=64", "filter/rate=200/s c=64"},
		Notes: []string{
			"variant proxy only in after.db",
			"plain: rate=400/s c=64 only in after.db",
			"filter: rate=400/s c=64 only in after.db",
			"before.db: 1 of 24 runs left out, flagged or unfinished (target_cpu_high×1)",
		},
		Old: "before.db", New: "after.db",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON shape (-want +got):\n%s", diff)
	}
}

func TestCompareResolveInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeCompareDB(t, "results.db", soloExp("plain", time.Millisecond))
	writeCompareDB(t, "run:1.db", soloExp("plain", time.Millisecond))
	writeIn(t, dir, "old.txt", "goos: linux\nBenchmarkX-8 10 100 ns/op\n")
	writeIn(t, dir, "notes.txt", "hello\n")
	// Both x.db and x.db:plain exist: the whole argument wins.
	writeIn(t, dir, "x.db", "SQLite format 3\x00")
	writeIn(t, dir, "x.db:plain", "BenchmarkX 10 100 ns/op\n")
	os.Mkdir("folder", 0o755)
	tests := []struct {
		arg, path, variant string
		kind               inputKind
		err                string
	}{
		{arg: "results.db", path: "results.db", kind: dbInput},
		{arg: "results.db:plain", path: "results.db", variant: "plain", kind: dbInput},
		{arg: "results.db:a:b", path: "results.db", variant: "a:b", kind: dbInput},
		{arg: "run:1.db", path: "run:1.db", kind: dbInput},
		{arg: "run:1.db:plain", path: "run:1.db", variant: "plain", kind: dbInput},
		{arg: "./run:1.db:plain", path: "./run:1.db", variant: "plain", kind: dbInput},
		{arg: "x.db:plain", path: "x.db:plain", kind: benchInput},
		{arg: "old.txt", path: "old.txt", kind: benchInput},
		{arg: "results.db:", err: "results.db:: no variant after the colon"},
		{arg: "nope.db:plain", err: "nope.db:plain: no such file, nor FILE:VARIANT with an existing FILE"},
		{arg: "nope.db", err: "nope.db: no such file"},
		{arg: ":plain", err: ":plain: no such file, nor FILE:VARIANT"},
		{arg: "old.txt:plain", err: `old.txt:plain: old.txt is not a results database, so it has no variant "plain"`},
		{arg: "notes.txt", err: `notes.txt:1: not go test -bench output`},
		{arg: "folder", err: "folder is a directory"},
		{arg: "folder:plain", err: "folder:plain: no such file, nor FILE:VARIANT"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			got, err := resolveInput(tt.arg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := compareInput{arg: tt.arg, path: tt.path, variant: tt.variant, kind: tt.kind}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(compareInput{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeIn(t, dir, "good.txt", "goos: linux\nBenchmarkX-8 10 100 ns/op\n")
	bad := writeIn(t, dir, "bad.txt", "goos: linux\nBenchmarkX-8 10 100 ns/op\nBenchmarkX-8 ten 100 ns/op\n")
	notBench := writeIn(t, dir, "notes.txt", "hello\n")
	garbage := writeIn(t, dir, "garbage.db", "SQLite format 3\x00rest")
	results := filepath.Join(dir, "results.db")
	writeCompareDB(t, results, filterExp, filterTuned)
	one := filepath.Join(dir, "one.db")
	writeCompareDB(t, one, soloExp("attack", time.Millisecond))
	empty := filepath.Join(dir, "empty.db")
	writeCompareDB(t, empty)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"syntax", []string{good, bad}, []string{bad + ":3: "}},
		{"not bench", []string{notBench, good}, []string{notBench + ":1: not go test -bench output"}},
		{"missing", []string{filepath.Join(dir, "nope.txt"), good}, []string{"nope.txt: no such file"}},
		{"one arg", []string{good}, []string{"compare takes two inputs", "got 1"}},
		{"same file", []string{good, filepath.Join(dir, ".", "good.txt")}, []string{good + " is both the old and the new results"}},
		{"format", []string{good, good, "--format", "html"}, []string{`--format "html"`}},
		{"mixed", []string{good, results}, []string{good + " is go test -bench output but " + results + " is a results database"}},
		{"mixed variant", []string{results + ":plain", good}, []string{results + ":plain is a results database but " + good + " is go test -bench output"}},
		{"unreadable database", []string{garbage, results}, []string{garbage, "not a latlab results database"}},
		{"unknown variant", []string{results + ":plain", results + ":nope"},
			[]string{results + `:nope: no variant "nope" in experiment filter-tuned (it has plain, filter)`}},
		{"unknown experiment", []string{results, results, "--experiment", "nginx"},
			[]string{"--experiment nginx", results, "no such experiment", "1 filter-overhead, 2 filter-tuned"}},
		{"unknown experiment on one side", []string{results, one, "--experiment", "filter-overhead"},
			[]string{"--experiment filter-overhead", one, "1 attack"}},
		{"no experiments", []string{empty, results}, []string{empty, "holds no experiments"}},
		{"no variant in common", []string{one, results}, []string{"no variant in common", one + " has attack", results + " has plain, filter"}},
		{"experiment for bench", []string{good, good, "--experiment", "x"}, []string{"--experiment is for results databases"}},
		{"variant of a bench file", []string{good + ":plain", good}, []string{"not a results database"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"compare"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
}

// testCompareExamples runs the examples of compare's help that read
// results databases, on databases of those names.
func testCompareExamples(t *testing.T) {
	code, help, _ := runCLI(t, "compare", "--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	var ran []string
	for _, line := range strings.Split(help, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "latlab compare ") || !strings.Contains(line, ".db") {
			continue
		}
		args := strings.Fields(strings.TrimPrefix(line, "latlab "))
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || stderr != "" || !strings.Contains(stdout, "latency: p50 (from intended send)") {
			t.Errorf("%s: exit %d, stderr %q; want 0, nothing and the tables:\n%s", line, code, stderr, stdout)
		}
		ran = append(ran, line)
	}
	want := []string{"latlab compare before.db after.db", "latlab compare results.db:plain results.db:filter --experiment filter-overhead"}
	if diff := cmp.Diff(want, ran); diff != "" {
		t.Errorf("examples run (-want +got):\n%s", diff)
	}
}
