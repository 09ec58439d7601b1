package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// Example runs a plan of two trials into a new database, is stopped after
// the first, and resumes the same experiment on a second pass.
func Example() {
	dir, err := os.MkdirTemp("", "latlab-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "results.db")
	for pass, stopAfter := range []int{1, -1} {
		if err := runPlan(context.Background(), path, pass, stopAfter); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// pass 0: experiment 1, 0 trials done
	// pass 1: experiment 1, 1 trials done
	// plain rate=100/s c=0 rep=1 done 3 requests
	// proxy rate=100/s c=0 rep=1 done 3 requests
}

// runPlan runs the trials of the plan not yet done, stopping after
// stopAfter of them unless it is negative, and lists the runs.
func runPlan(ctx context.Context, path string, pass, stopAfter int) error {
	const spec = "version: 1\nname: sweep\n"
	plan := []store.Trial{{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 1}, {Variant: "proxy", Level: record.Level{Rate: 100}, Rep: 1}}
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	exp, err := db.FindExperiment(ctx, store.SpecHash(spec))
	if err != nil {
		exp, err = db.CreateExperiment(ctx, store.Experiment{Name: "sweep", Spec: spec,
			Provenance: store.Provenance{Host: "lab1", Seed: 1}})
	}
	if err != nil {
		return err
	}
	done, err := db.CompletedTrials(ctx, exp.ID)
	if err != nil {
		return err
	}
	fmt.Printf("pass %d: experiment %d, %d trials done\n", pass, exp.ID, len(done))
	for i, tr := range plan[len(done):] {
		if i == stopAfter {
			return nil // as if killed here
		}
		res := measure()
		info := store.RunInfo{Trial: tr, Position: len(done) + i, Status: store.Done,
			StartedAt: res.Start, EndedAt: time.Now()}
		if _, err := db.WriteRun(ctx, exp.ID, info, res, nil, nil, nil); err != nil {
			return err
		}
	}
	runs, err := db.Runs(ctx, exp.ID)
	if err != nil {
		return err
	}
	for _, r := range runs {
		fmt.Println(r.Trial, r.Status, r.Summary.Requests, "requests")
	}
	return nil
}

// measure stands in for a load run.
func measure() *record.Result {
	rec := record.NewRecorder(time.Now(), record.Config{})
	for i := range 3 {
		d := time.Duration(i+1) * time.Millisecond
		rec.Sent()
		rec.Record(0, &record.Sample{Intended: d, Sent: d, Done: 2 * d, Code: 200})
	}
	return rec.Stop()
}
