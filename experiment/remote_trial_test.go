package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/store"
)

// TestRemoteTrialStored runs one trial here with a Runner and the same
// trial through an agent and a remote.Client over 127.0.0.1, and holds what each
// stores to the same figures: the same requests, steps, codes, warm-up,
// raw samples up to the cap, histograms that decode to the counts.
func TestRemoteTrialStored(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.WriteHeader(http.StatusCreated)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"scenario.yaml": `users: [{name: alice, token_file: alice.token}]
steps:
  - {name: create, method: POST, url: "http://x.invalid/o/{{.Iter}}", headers: {Authorization: "Bearer {{.User.Token}}"}, body_file: body.json}
  - {name: get, url: "http://x.invalid/o/{{.Iter}}"}
`,
		"alice.token": "s3cret\n",
		"body.json":   `{"n": 1}`,
	})
	s := remotetest.WriteSpec(t, dir, fmt.Sprintf(`version: 1
name: remote
variants: [{name: v, target: %q}]
load: {mode: closed, concurrency: [2], requests: 40, scenario: scenario.yaml}
warmup: {duration: 200ms}
`, srv.URL+"/"))
	const iterations, samples = 40, int64(25)
	ctx := context.Background()

	local := openDB(t, filepath.Join(dir, "local.db"))
	n := samples
	out, err := (&Runner{Spec: s, DB: local, Samples: &n}).Run(ctx)
	if err != nil || out.Done != 1 {
		t.Fatalf("local run: %+v, %v", out, err)
	}

	trial := s.Plan(1)[0]
	b, err := remote.NewBundle(s, trial, "", samples)
	if err != nil {
		t.Fatal(err)
	}
	url, _, _ := remotetest.StartAgent(t, &remote.Agent{})
	run, err := (&remote.Client{Token: remotetest.Token, URL: url, Poll: 20 * time.Millisecond}).Run(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	warm, res := run.Warm, run.Result

	far := openDB(t, filepath.Join(dir, "remote.db"))
	exp, err := far.CreateExperiment(ctx, store.Experiment{Name: "remote", Spec: "remote", SpecHash: s.Hash()})
	if err != nil {
		t.Fatal(err)
	}
	info := store.RunInfo{Trial: storeTrial(trial), Position: trial.Position, Status: store.Done, StartedAt: time.Now(), EndedAt: time.Now()}
	if _, err := far.WriteRun(ctx, exp.ID, info, res, warm, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := storedFigures(t, local, out.Experiment.ID)
	got := storedFigures(t, far, exp.ID)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored figures (-local +remote):\n%s", diff)
	}
	if want.Requests != 2*iterations || want.Samples != samples || want.Dropped != 2*iterations-samples || !want.Warmup || want.Codes["201"] != iterations {
		t.Errorf("local run stored %+v; want %d requests, %d samples kept, the rest dropped, a warm-up, every POST authorized", want, 2*iterations, samples)
	}
}

// figures are what a stored run holds that does not depend on timing.
type figures struct {
	Status                 store.Status
	Mode                   string
	TargetRate             float64
	Concurrency            int
	Requests, Sent, Errors int64
	Codes                  map[string]int64
	Warmup                 bool // a warm-up is stored, its requests counted as the measurement's warm-up requests
	Samples, Dropped       int64
	SampleCodes            map[uint16]bool
	Steps                  map[string]int64 // requests by step
	Totals                 map[string]int64 // counts of the measurement's whole-run histograms
	IntervalCompleted      int64            // summed over the intervals, whose histograms decode to it
}

// storedFigures reads the figures of the one run of experiment expID.
func storedFigures(t *testing.T, db *store.DB, expID int64) figures {
	t.Helper()
	ctx := context.Background()
	runs, err := db.Runs(ctx, expID)
	if err != nil || len(runs) != 1 || runs[0].Summary == nil {
		t.Fatalf("runs %+v, %v; want one with a result", runs, err)
	}
	r := runs[0]
	f := figures{Status: r.Status, Mode: r.Mode, TargetRate: r.Summary.TargetRate, Concurrency: r.Summary.Concurrency,
		Requests: r.Summary.Requests, Sent: r.Summary.Sent, Errors: int64(len(r.Summary.Errors)), Codes: r.Summary.StatusCodes,
		Warmup:  r.Warmup != nil && r.Warmup.Requests > 0 && r.Warmup.Requests == r.Summary.WarmupRequests,
		Samples: r.Samples, Dropped: r.SamplesDropped,
		SampleCodes: map[uint16]bool{}, Steps: map[string]int64{}, Totals: map[string]int64{}}
	if err := db.Samples(ctx, r.ID, func(s record.Raw) error { f.SampleCodes[s.Code] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	steps, err := db.Steps(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		f.Steps[s.Name] = s.Requests
	}
	tot, err := db.Totals(ctx, r.ID, store.Measure)
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*hdr.Histogram{"latency": tot.Latency, "service": tot.Service, "lag": tot.Lag} {
		if h != nil {
			f.Totals[name] = h.TotalCount()
		}
	}
	ivs, err := db.Intervals(ctx, r.ID, store.Measure)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range ivs {
		h, err := in.Latency.Histogram()
		if err != nil || h.TotalCount() != in.Completed {
			t.Fatalf("interval %d: latency histogram of %v (%v), want %d", i, h, err, in.Completed)
		}
		f.IntervalCompleted += in.Completed
	}
	return f
}
