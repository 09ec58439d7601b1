package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// TestPlanVersionResumed checks that a new experiment stores the version
// of its order, and that resuming draws the plan in the version stored:
// version 1 for experiments stored before versions were, so that their
// remaining trials keep the order they began in.
func TestPlanVersionResumed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sp := remotetest.WriteSpec(t, dir, `version: 1
name: versions
variants:
  - {name: plain, target: 'http://127.0.0.1:9000/'}
  - {name: proxy, target: 'http://127.0.0.1:9001/'}
  - {name: filter, target: 'http://127.0.0.1:9002/'}
load: {rates: [100, 200, 400], duration: 1s}
runs: 3
seed: 5
`)
	if cmp.Equal(sp.PlanOf(5, 1), sp.PlanOf(5, 2)) {
		t.Fatal("versions 1 and 2 draw the same plan of seed 5: the test would show nothing")
	}
	db := openDB(t, filepath.Join(dir, "results.db"))
	r := &Runner{Spec: sp, DB: db}
	created, _, resumed, err := r.experiment(ctx)
	if err != nil || resumed {
		t.Fatalf("new experiment: resumed %v, %v", resumed, err)
	}
	if got := created.Provenance.Extra[planKey]; got != "2" {
		t.Errorf("a new experiment stores plan version %q; want \"2\"", got)
	}
	if got := created.Provenance.Extra[SpecPathKey]; got != sp.File || got == "" {
		t.Errorf("a new experiment stores its spec's file as %q; want %q", got, sp.File)
	}
	for _, tc := range []struct {
		name, version string // "" stores none
		want          []spec.Trial
		err           string
	}{
		{"stored before versions", "", sp.PlanOf(5, 1), ""},
		{"version 1", "1", sp.PlanOf(5, 1), ""},
		{"version 2", "2", sp.PlanOf(5, 2), ""},
		{"a later version", "3", nil, `provenance extra.plan_version is "3", an order this latlab cannot draw again`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t, filepath.Join(t.TempDir(), "results.db"))
			prov := store.Provenance{Seed: 5, Extra: map[string]string{}}
			if tc.version != "" {
				prov.Extra[planKey] = tc.version
			}
			exp, err := db.CreateExperiment(ctx, store.Experiment{Name: sp.Name, Spec: sp.Canonical(), SpecHash: sp.Hash(), Provenance: prov})
			if err != nil {
				t.Fatal(err)
			}
			// The first trial of the stored order is done.
			first := tc.want
			if first == nil {
				first = sp.PlanOf(5, 1)
			}
			info := store.RunInfo{Trial: storeTrial(first[0]), Position: 1, Status: store.Done}
			if _, err := db.WriteRun(ctx, exp.ID, info, nil, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			p, err := (&Runner{Spec: sp, DB: db}).Preview(ctx)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v; want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Resume == nil || p.Plan != len(tc.want) {
				t.Fatalf("preview resumes %v with %d trials; want experiment %d with %d", p.Resume, p.Plan, exp.ID, len(tc.want))
			}
			if diff := cmp.Diff(tc.want[1:], p.Trials); diff != "" {
				t.Errorf("trials left (-want +got):\n%s", diff)
			}
		})
	}
}
