package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// TestExperiments keeps several experiments in one file, finds the one to
// resume by spec hash and lists each one's completed trials.
func TestExperiments(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	a1 := newExperiment(t, db, "sweep", "spec A")
	b := newExperiment(t, db, "sweep", "spec B")
	a2 := newExperiment(t, db, "sweep", "spec A") // started again with --new
	res := recorded(t, time.Now(), 200, 5)
	write := func(e Experiment, tr Trial, pos int, status Status) {
		t.Helper()
		in := info(tr, pos)
		in.Status = status
		if _, err := db.WriteRun(ctx, e.ID, in, res, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The same trial in two experiments is two runs, not a duplicate.
	write(a1, Trial{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 1}, 0, Done)
	write(a2, Trial{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 1}, 0, Done)
	write(a2, Trial{Variant: "proxy", Level: record.Level{Rate: 100}, Rep: 1}, 1, Failed)
	write(a2, Trial{Variant: "plain", Level: record.Level{Concurrency: 8}, Rep: 2}, 2, Done)
	write(b, Trial{Variant: "plain", Level: record.Level{Rate: 50}, Rep: 1}, 0, Interrupted)

	exps, err := db.Experiments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, e := range exps {
		ids = append(ids, e.ID)
	}
	if diff := cmp.Diff([]int64{a1.ID, b.ID, a2.ID}, ids); diff != "" {
		t.Errorf("experiments (-want +got):\n%s", diff)
	}
	got, err := db.FindExperiment(ctx, SpecHash("spec A"))
	if err != nil || got.ID != a2.ID {
		t.Errorf("FindExperiment(spec A) = %d, %v; want the latest, %d", got.ID, err, a2.ID)
	}
	if _, err := db.FindExperiment(ctx, SpecHash("spec C")); !errors.Is(err, ErrNotFound) {
		t.Errorf("FindExperiment(spec C): %v; want ErrNotFound", err)
	}
	for _, tt := range []struct {
		exp  Experiment
		want []Trial
	}{
		{a1, []Trial{{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 1}}},
		{a2, []Trial{{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 1}, {Variant: "plain", Level: record.Level{Concurrency: 8}, Rep: 2}}},
		{b, nil},
	} {
		got, err := db.CompletedTrials(ctx, tt.exp.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("completed trials of experiment %d (-want +got):\n%s", tt.exp.ID, diff)
		}
	}
	runs, err := db.Runs(ctx, a2.ID)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []Status
	for _, r := range runs {
		statuses = append(statuses, r.Status)
	}
	if diff := cmp.Diff([]Status{Done, Failed, Done}, statuses); diff != "" {
		t.Errorf("statuses of experiment %d in plan order (-want +got):\n%s", a2.ID, diff)
	}
}

// TestUpdateExperiment rewrites an experiment's spec, hash and provenance
// and keeps its ID and creation time; an ID the file lacks is ErrNotFound.
func TestUpdateExperiment(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	e := newExperiment(t, db, "sweep", "runs: 6")
	e.Spec, e.SpecHash = "runs: 8", ""
	e.Provenance.Extra = map[string]string{"canonical": "runs: 8"}
	if err := db.UpdateExperiment(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := db.Experiment(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec != "runs: 8" || got.SpecHash != SpecHash("runs: 8") || got.Provenance.Extra["canonical"] != "runs: 8" || !got.CreatedAt.Equal(e.CreatedAt) {
		t.Errorf("updated experiment %+v; want spec, hash and canonical of runs: 8, created at %s", got, e.CreatedAt)
	}
	e.ID = 99
	if err := db.UpdateExperiment(ctx, e); !errors.Is(err, ErrNotFound) {
		t.Errorf("updating a missing experiment: %v, want ErrNotFound", err)
	}
}
