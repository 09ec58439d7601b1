package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// compareExp describes one experiment of a results database for
// compare's tests.
type compareExp struct {
	name     string
	variants []string                 // in plan order
	base     map[string]time.Duration // each variant's base latency
	rates    []float64
	reps     int
	// flagged says which runs carry target_cpu_high, and get 100 µs more.
	flagged func(variant string, rate float64, rep int) bool
}

// filterExp has plain (200 µs) and filter (+50 µs) at 100/s and 200/s,
// six runs each, run 2 of filter at 200/s flagged.
var filterExp = compareExp{
	name:     "filter-overhead",
	variants: []string{"plain", "filter"},
	base:     map[string]time.Duration{"plain": 200 * time.Microsecond, "filter": 250 * time.Microsecond},
	rates:    []float64{100, 200},
	reps:     6,
	flagged: func(v string, rate float64, rep int) bool {
		return v == "filter" && rate == 200 && rep == 2
	},
}

// writeCompareDB writes the experiments to a results database at path,
// which must not exist, with runs made by reportRun at concurrency 64,
// interleaved: rep by rep, rate by rate, variant by variant.
func writeCompareDB(t *testing.T, path string, exps ...compareExp) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s exists", path)
	}
	addCompareExps(t, path, exps...)
}

// addCompareExps writes the experiments, as writeCompareDB does, to the
// results database at path, creating it if need be.
func addCompareExps(t *testing.T, path string, exps ...compareExp) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, e := range exps {
		exp, err := db.CreateExperiment(ctx, store.Experiment{Name: e.name, Spec: "name: " + e.name + "\n"})
		if err != nil {
			t.Fatal(err)
		}
		pos := 0
		for rep := 1; rep <= e.reps; rep++ {
			for _, rate := range e.rates {
				for _, v := range e.variants {
					info := store.RunInfo{Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate, Concurrency: 64}, Rep: rep},
						Position: pos, Status: store.Done, StartedAt: time.Now(), EndedAt: time.Now()}
					b := e.base[v]
					if e.flagged != nil && e.flagged(v, rate, rep) {
						b += 100 * time.Microsecond
						info.Flags = []store.Flag{{Name: "target_cpu_high", Reason: "target CPU 82% of 2 cores (budget 75%)"}}
					}
					if _, err := db.WriteRun(ctx, exp.ID, info, reportRun(v, rate, rep, b), nil, nil, nil); err != nil {
						t.Fatal(err)
					}
					pos++
				}
			}
		}
	}
}

// compareDB is a results database of compare's tests: a copy of the one
// named from, if any, written earlier, then exps added. Copying a file
// gives the same database as writing the same experiments again, in a
// fraction of the time under -race.
type compareDB struct {
	name, from string
	exps       []compareExp
}

// inCompareDir makes a temporary folder the working directory, writes
// the databases there, in order, and returns the absolute path of
// cmd/latlab/testdata, for golden files.
func inCompareDir(t *testing.T, dbs []compareDB) string {
	t.Helper()
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, d := range dbs {
		if d.from == "" {
			writeCompareDB(t, d.name, d.exps...)
			continue
		}
		copyClosedDB(t, d.from, d.name)
		if len(d.exps) > 0 {
			addCompareExps(t, d.name, d.exps...)
		}
	}
	return testdata
}

// copyClosedDB copies the closed results database at from to a new file
// at to. A closed database has written everything back from its
// write-ahead log.
func copyClosedDB(t *testing.T, from, to string) {
	t.Helper()
	if fi, err := os.Stat(from + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatalf("%s has %d bytes still in its write-ahead log", from, fi.Size())
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
