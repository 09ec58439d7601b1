package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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
	ctx := context.Background()
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s exists", path)
	}
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
					info := store.RunInfo{Trial: store.Trial{Variant: v, Rate: rate, Concurrency: 64, Rep: rep},
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

// inCompareDir makes a temporary folder the working directory, writes
// the databases named in dbs there and returns the absolute path of
// cmd/latlab/testdata, for golden files.
func inCompareDir(t *testing.T, dbs map[string][]compareExp) string {
	t.Helper()
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	names := make([]string, 0, len(dbs))
	for name := range dbs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		writeCompareDB(t, name, dbs[name]...)
	}
	return testdata
}
