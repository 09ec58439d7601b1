package experiment

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/store"
)

// autoRunSpec is a spec of two local targets at one rate under runs:
// runs.
func autoRunSpec(a, b, runs string) string {
	return fmt.Sprintf(`version: 1
name: auto-run
variants:
  - {name: base, target: "%s/"}
  - {name: proxy, target: "%s/"}
load: {mode: open, rates: [200], duration: 100ms}
runs: %s
seed: 5
`, a, b, runs)
}

// cancelAfter is a trial log that cancels a context once n trials have
// finished.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.HasPrefix(p, []byte("trial ")) {
		if c.n--; c.n == 0 {
			c.cancel()
		}
	}
	return len(p), nil
}

// repsOf returns the repetitions stored done of each cell of experiment
// id, by "variant level".
func repsOf(t *testing.T, db *store.DB, id int64) map[string][]int {
	t.Helper()
	runs, err := db.Runs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]int{}
	for _, r := range runs {
		if r.Status == store.Done {
			k := r.Variant + " " + r.Level.String()
			out[k] = append(out[k], r.Rep)
		}
	}
	return out
}

// TestRunnerAuto runs runs: auto against two local targets: with a goal
// any interval meets it stops once there are intervals, precise; with one
// none meets it runs to max, and an interruption on the way resumes
// where it stopped. Each time the experiment keeps why each cell stopped.
func TestRunnerAuto(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()

	t.Run("precise", func(t *testing.T) {
		dir := t.TempDir()
		db := openDB(t, filepath.Join(dir, "results.db"))
		spec := remotetest.WriteSpec(t, dir, autoRunSpec(srv.URL, srv.URL, "{min: 4, max: 6, precision: 1s, quantiles: [p50]}"))
		out, err := (&Runner{Spec: spec, DB: db}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Stops) != 1 || out.Stops[0].Reason != analysis.StopPrecise || out.Stops[0].Runs < 4 || out.Stops[0].Runs > 6 {
			t.Fatalf("stops %v; want proxy 200/s precise after 4 to 6 runs", out.Stops)
		}
		reps := repsOf(t, db, out.Experiment.ID)
		if n := out.Stops[0].Runs; len(reps["base 200/s"]) != n || len(reps["proxy 200/s"]) != n {
			t.Errorf("stored reps %v; want %d of each variant", reps, n)
		}
		checkStoredStops(t, db, out)
	})

	t.Run("max, interrupted", func(t *testing.T) {
		dir := t.TempDir()
		db := openDB(t, filepath.Join(dir, "results.db"))
		spec := remotetest.WriteSpec(t, dir, autoRunSpec(srv.URL, srv.URL, "{min: 4, max: 6, precision: 1ns, quantiles: [p50]}"))
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		// The ninth trial is the first of the fifth repetition, the
		// first decided on the runs.
		first, err := (&Runner{Spec: spec, DB: db, Log: &cancelAfter{n: 9, cancel: cancel}}).Run(cctx)
		if err != nil {
			t.Fatal(err)
		}
		if !first.Interrupted || first.Stops != nil {
			t.Fatalf("first run %+v; want it interrupted, without stops", first)
		}
		if e, _ := db.Experiment(ctx, first.Experiment.ID); e.Provenance.Extra[analysis.StopsKey] != "" {
			t.Errorf("an interrupted experiment stored stops %s", e.Provenance.Extra[analysis.StopsKey])
		}
		var preview bytes.Buffer
		p, err := (&Runner{Spec: spec, DB: db}).Preview(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Write(&preview); err != nil {
			t.Fatal(err)
		}
		for _, tr := range p.Trials {
			if tr.Rep < 5 {
				t.Errorf("the dry run after the interruption shows trial %d of rep %d, before the one interrupted", tr.Position, tr.Rep)
			}
		}
		if !strings.Contains(preview.String(), "runs:     auto:") {
			t.Errorf("the dry run does not explain runs: auto:\n%s", preview.String())
		}
		out, err := (&Runner{Spec: spec, DB: db}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !out.Resumed || out.Skipped < 8 || len(out.Stops) != 1 || out.Stops[0].Reason != analysis.StopMax || out.Stops[0].Runs != 6 {
			t.Fatalf("resumed %+v; want the experiment gone on to max, 6 runs", out)
		}
		reps := repsOf(t, db, out.Experiment.ID)
		for _, k := range []string{"base 200/s", "proxy 200/s"} {
			if got := fmt.Sprint(slices.Sorted(slices.Values(reps[k]))); got != "[1 2 3 4 5 6]" {
				t.Errorf("%s stored reps %v; want 1 to 6, each once", k, reps[k])
			}
		}
		checkStoredStops(t, db, out)
		again, err := (&Runner{Spec: spec, DB: db}).Run(ctx)
		if err != nil || again.Done != 0 || len(again.Stops) != 1 || again.Stops[0].String() != out.Stops[0].String() {
			t.Errorf("run again: %+v, %v; want nothing run and the same stop", again, err)
		}
	})
}

// checkStoredStops checks that the experiment of out keeps out's stops.
func checkStoredStops(t *testing.T, db *store.DB, out Outcome) {
	t.Helper()
	e, err := db.Experiment(context.Background(), out.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := analysis.StoredStops(e.Provenance)
	if err != nil || fmt.Sprint(stored) != fmt.Sprint(out.Stops) {
		t.Errorf("stored stops %v, %v; want %v", stored, err, out.Stops)
	}
}
