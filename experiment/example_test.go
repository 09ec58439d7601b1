package experiment_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// ExampleRunner runs a spec of two variants, twice each, into a new
// database, as latlab run does, and reads the runs back as latlab report
// does. 50 requests are too few for a trustworthy p99, so every run is
// stored flagged, and left out of the overheads a report computes.
func ExampleRunner() {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "latlab-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s, err := spec.ParseSpec("study.yaml", []byte(`version: 1
name: study
variants:
  - {name: plain, target: '`+srv.URL+`/'}
  - {name: again, target: '`+srv.URL+`/'}
load: {mode: closed, concurrency: [2], requests: 50}
runs: 2
seed: 1
`), dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "results.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	out, err := (&experiment.Runner{Spec: s, DB: db}).Run(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("experiment %d: %d of %d trials done, %d flagged\n", out.Experiment.ID, out.Done, out.Trials, out.Flagged)
	exp, err := analysis.Load(ctx, db, out.Experiment.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range exp.Runs {
		var flags []string
		for _, f := range r.Flags {
			flags = append(flags, f.Name)
		}
		fmt.Printf("trial %d: %s, repetition %d: %d requests, flagged %v\n", r.Position, r.Variant, r.Rep, r.Requests, flags)
	}
	// Output:
	// experiment 1: 4 of 4 trials done, 4 flagged
	// trial 1: plain, repetition 1: 50 requests, flagged [too_few_samples]
	// trial 2: again, repetition 1: 50 requests, flagged [too_few_samples]
	// trial 3: plain, repetition 2: 50 requests, flagged [too_few_samples]
	// trial 4: again, repetition 2: 50 requests, flagged [too_few_samples]
}
