package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/store"
)

// topUpSpec is a spec of two targets at one rate, runs times, with
// extra appended.
func topUpSpec(a, b string, runs, extra string) string {
	return fmt.Sprintf(`version: 1
name: top-up
variants:
  - {name: base, target: "%s/"}
  - {name: proxy, target: "%s/"}
load: {mode: open, rates: [50], duration: 100ms}
runs: %s
seed: 11
%s`, a, b, runs, extra)
}

// TestPlanRaisedKeepsItsPrefix holds what a raise rests on: a plan drawn
// with more runs begins with the plan of fewer, trial for trial and
// position for position, in every version of the interleaved order.
func TestPlanRaisedKeepsItsPrefix(t *testing.T) {
	six := mustParse(t, strings.Replace(topupSpec, "validity:", "runs: 6\nvalidity:", 1))
	eight := mustParse(t, strings.Replace(topupSpec, "validity:", "runs: 8\nvalidity:", 1))
	for v := 1; v <= spec.PlanVersion; v++ {
		short, long := six.PlanOf(3, v), eight.PlanOf(3, v)
		if diff := cmp.Diff(short, long[:len(short)]); diff != "" {
			t.Errorf("version %d: the plan of 8 runs does not begin with that of 6 (-6 +8):\n%s", v, diff)
		}
		for _, tr := range long[len(short):] {
			if tr.Rep <= 6 {
				t.Errorf("version %d: trial %d (rep %d) comes after the plan of 6 runs", v, tr.Position, tr.Rep)
			}
		}
	}
}

// TestRunnerRaisesRuns runs two repetitions, raises runs: to 3 and runs
// again: the same experiment goes on with the third repetition alone,
// the first two untouched; the dry run before showed exactly those
// trials. Lowering runs: and any other change are refused.
func TestRunnerRaisesRuns(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	db := openDB(t, filepath.Join(dir, "results.db"))
	first, err := (&Runner{Spec: remotetest.WriteSpec(t, dir, topUpSpec(srv.URL, srv.URL, "2", "")), DB: db}).Run(ctx)
	if err != nil || first.Done != 4 {
		t.Fatalf("first run: %+v, %v; want 4 trials done", first, err)
	}
	before, err := db.Runs(ctx, first.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}

	raised := remotetest.WriteSpec(t, dir, topUpSpec(srv.URL, srv.URL, "3", ""))
	p, err := (&Runner{Spec: raised, DB: db}).Preview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := raised.Plan(11)[4:]
	if p.Resume == nil || p.Resume.ID != first.Experiment.ID || p.Raised == nil || p.Changed != nil || !cmp.Equal(p.Trials, want) {
		t.Fatalf("dry run of runs: 3: resumes %v, raised %v, changed %v, trials %v; want experiment %d raised, trials %v",
			p.Resume, p.Raised, p.Changed, p.Trials, first.Experiment.ID, want)
	}
	var text bytes.Buffer
	if err := p.Write(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "raised:   runs: 2 → 3:") {
		t.Errorf("the dry run does not say runs were raised:\n%s", text.String())
	}

	out, err := (&Runner{Spec: raised, DB: db}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Experiment.ID != first.Experiment.ID || !out.Resumed || out.Raised == nil || out.Skipped != 4 || out.Done != 2 || out.Trials != 6 {
		t.Fatalf("raised run: %+v; want experiment %d resumed with 4 skipped and 2 done of 6", out, first.Experiment.ID)
	}
	after, err := db.Runs(ctx, first.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 6 {
		t.Fatalf("%d runs stored; want 6", len(after))
	}
	for _, old := range before {
		i := slices.IndexFunc(after, func(r store.Run) bool { return r.ID == old.ID })
		if i < 0 || !after[i].StartedAt.Equal(old.StartedAt) || after[i].Trial != old.Trial || after[i].Position != old.Position {
			t.Errorf("run %d (%s) changed or went: %+v", old.ID, old.Trial, after[i:min(i+1, len(after))])
		}
	}
	for _, r := range after[4:] {
		if r.Rep != 3 {
			t.Errorf("new run %s; want rep 3 only", r.Trial)
		}
	}
	exp, err := db.Experiment(ctx, first.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	if exp.SpecHash != raised.Hash() || !strings.Contains(exp.Spec, "runs: 3") || exp.Provenance.Extra["canonical"] != raised.Canonical() ||
		!strings.Contains(exp.Provenance.Extra[raisedKey], "runs: 2 → 3") {
		t.Errorf("stored experiment after the raise: hash %s, spec %q, extra %v; want the raised spec's, and the raise noted", exp.SpecHash, exp.Spec, exp.Provenance.Extra)
	}
	again, err := (&Runner{Spec: raised, DB: db}).Run(ctx)
	if err != nil || again.Raised != nil || again.Done != 0 || again.Skipped != 6 {
		t.Errorf("runs: 3 again: %+v, %v; want nothing to do and no raise", again, err)
	}

	for _, tc := range []struct {
		name, spec, diff, why string
	}{
		{"lowered", topUpSpec(srv.URL, srv.URL, "2", ""), "runs: 3 → 2", "runs can only be raised"},
		{"raised with another change", topUpSpec(srv.URL, srv.URL, "4", "restart: per-run\n"), "restart: never → per-run", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (&Runner{Spec: remotetest.WriteSpec(t, t.TempDir(), tc.spec), DB: db}).Run(ctx)
			var ce *ChangedError
			if !errors.As(err, &ce) || !strings.Contains(ce.Diff, tc.diff) || !strings.Contains(ce.Why, tc.why) || (tc.why == "") != (ce.Why == "") {
				t.Fatalf("%v; want a ChangedError with %q in its diff and %q as why", err, tc.diff, tc.why)
			}
		})
	}
}

// TestRaiseNeedsTheStoredForm holds that an experiment whose stored
// canonical form is missing, or is not the one its hash was taken of,
// resumes under its exact spec only: nothing vouches that the rest of a
// raised spec is unchanged.
func TestRaiseNeedsTheStoredForm(t *testing.T) {
	ctx := context.Background()
	six := mustParse(t, strings.Replace(topupSpec, "validity:", "runs: 6\nvalidity:", 1))
	eight := mustParse(t, strings.Replace(topupSpec, "validity:", "runs: 8\nvalidity:", 1))
	for _, tc := range []struct {
		name      string
		canonical string // stored as extra.canonical; "" stores none
		raises    bool
	}{
		{"stored", six.Canonical(), true},
		{"none stored", "", false},
		{"another form stored", eight.Canonical(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t, filepath.Join(t.TempDir(), "results.db"))
			prov := store.Provenance{Seed: 3, Extra: map[string]string{}}
			if tc.canonical != "" {
				prov.Extra["canonical"] = tc.canonical
			}
			if _, err := db.CreateExperiment(ctx, store.Experiment{Name: six.Name, Spec: "runs: 6", SpecHash: six.Hash(), Provenance: prov}); err != nil {
				t.Fatal(err)
			}
			if _, raise, err := (&Runner{Spec: six, DB: db}).resumable(ctx); err != nil || raise != nil {
				t.Errorf("the same spec: raise %v, %v; want it resumed as it is", raise, err)
			}
			_, raise, err := (&Runner{Spec: eight, DB: db}).resumable(ctx)
			var ce *ChangedError
			if tc.raises != (raise != nil) || !tc.raises && !errors.As(err, &ce) {
				t.Errorf("runs: 8: raise %v, %v; want a raise %v, else a ChangedError", raise, err, tc.raises)
			}
		})
	}
}

// TestRaiseGroupedRefused holds that a grouped plan's runs are not
// raised: its new repetitions would belong amid the trials already run.
func TestRaiseGroupedRefused(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	db := openDB(t, filepath.Join(dir, "results.db"))
	if _, err := (&Runner{Spec: remotetest.WriteSpec(t, dir, topUpSpec(srv.URL, srv.URL, "1", "order: grouped\n")), DB: db}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := (&Runner{Spec: remotetest.WriteSpec(t, dir, topUpSpec(srv.URL, srv.URL, "2", "order: grouped\n")), DB: db}).Run(ctx)
	var ce *ChangedError
	if !errors.As(err, &ce) || !strings.Contains(ce.Why, "order: grouped") || !strings.Contains(ce.Diff, "runs: 1 → 2") {
		t.Fatalf("%v; want a ChangedError saying a grouped plan's runs are not raised", err)
	}
}
