package experiment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// resultCmp compares Results exactly: unexported fields too, and
// histograms by range and counts.
var resultCmp = cmp.Options{
	cmp.AllowUnexported(record.Result{}, record.Kept{}),
	cmp.Comparer(func(a, b *hdr.Histogram) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Equals(b) && a.Tag() == b.Tag()
	}),
}

// TestRemoteTrial runs one trial here with a Runner and the same trial
// through an agent and a Remote over 127.0.0.1, and holds what each
// stores to the same figures: the same requests, steps, codes, warm-up,
// raw samples up to the cap, histograms that decode to the counts. What
// the Remote brings back is what the agent measured, exactly.
func TestRemoteTrial(t *testing.T) {
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
	s := writeSpec(t, dir, fmt.Sprintf(`version: 1
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
	b, err := NewBundle(s, trial, "", samples)
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{}
	url, _, wait := startAgent(t, a)
	var mu sync.Mutex
	var states []AgentState
	rm := &Remote{Token: testToken, URL: url, Poll: 20 * time.Millisecond, Progress: func(st AgentStatus) {
		mu.Lock()
		states = append(states, st.State)
		mu.Unlock()
	}}
	run, err := rm.Run(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	warm, res := run.Warm, run.Result
	if run.Points != nil {
		t.Errorf("points %v of a spec that asks for no traces; want none", run.Points)
	}
	if err := wait(); err != nil {
		t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
	}
	tr := a.current()
	if diff := cmp.Diff(tr.res, res, resultCmp); diff != "" {
		t.Errorf("the result the Remote brought back differs from the agent's (-agent +remote):\n%s", diff)
	}
	if diff := cmp.Diff(tr.warm, warm, resultCmp); diff != "" {
		t.Errorf("the warm-up the Remote brought back differs from the agent's (-agent +remote):\n%s", diff)
	}
	mu.Lock()
	if len(states) == 0 || states[len(states)-1] != AgentDone {
		t.Errorf("progress seen: %v, want it to end done", states)
	}
	mu.Unlock()

	remote := openDB(t, filepath.Join(dir, "remote.db"))
	exp, err := remote.CreateExperiment(ctx, store.Experiment{Name: "remote", Spec: "remote", SpecHash: s.Hash()})
	if err != nil {
		t.Fatal(err)
	}
	info := store.RunInfo{Trial: storeTrial(trial), Position: trial.Position, Status: store.Done, StartedAt: time.Now(), EndedAt: time.Now()}
	if _, err := remote.WriteRun(ctx, exp.ID, info, res, warm, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := storedFigures(t, local, out.Experiment.ID)
	got := storedFigures(t, remote, exp.ID)
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

// TestRemoteInterrupted holds a Remote whose context ends to stop the
// agent's trial and bring back what it measured, marked interrupted, and
// the agent to exit.
func TestRemoteInterrupted(t *testing.T) {
	s := agentTarget(t, "{mode: open, rates: [50], duration: 1m}")
	b, err := NewBundle(s, Trial{Variant: "v", Level: record.Level{Rate: 50}, Rep: 1, Position: 1}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	url, _, wait := startAgent(t, &Agent{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rm := &Remote{Token: testToken, URL: url, Poll: 20 * time.Millisecond, Progress: func(st AgentStatus) {
		if st.Progress != nil && st.Progress.Sent > 0 {
			cancel() // as Ctrl-C would
		}
	}}
	run, err := rm.Run(ctx, b)
	warm, res := run.Warm, run.Result
	if err != nil || warm != nil || res == nil || run.Points != nil {
		t.Fatalf("Run = %+v, %v; want a result alone", run, err)
	}
	if !res.Interrupted || res.Sent == 0 || int64(len(res.Raw)) != min(100, res.Requests) {
		t.Errorf("result: interrupted %v, %d sent, %d raw of %d; want interrupted, some sent, all kept raw", res.Interrupted, res.Sent, len(res.Raw), res.Requests)
	}
	if err := wait(); err != nil {
		t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
	}
}

// TestRemoteErrors holds a Remote's errors to saying what failed, where.
func TestRemoteErrors(t *testing.T) {
	ctx := context.Background()
	s := agentTarget(t, "{mode: open, rates: [20], duration: 1m}")
	trial := Trial{Variant: "v", Level: record.Level{Rate: 20}, Rep: 1, Position: 1}
	b, err := NewBundle(s, trial, "", 0)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("not ready", func(t *testing.T) {
		url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
		_, err := (&Remote{Token: testToken, URL: url, Ready: 300 * time.Millisecond}).Run(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "agent "+url+": not ready after 300ms: ") {
			t.Errorf("Run = %v", err)
		}
	})
	t.Run("bad bundle", func(t *testing.T) {
		url, _, wait := startAgent(t, &Agent{})
		bad := *b
		bad.Trial.Variant = "nope"
		_, err := (&Remote{Token: testToken, URL: url}).Run(ctx, &bad)
		var ae *AgentError
		if !errors.As(err, &ae) || ae.Code != http.StatusBadRequest || ae.Request != "POST /trial" || !strings.Contains(ae.Msg, `no variant called "nope"`) {
			t.Errorf("Run = %v, want the agent's 400 naming the variant", err)
		}
		if err := wait(); err != nil {
			t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
		}
	})
	t.Run("lost", func(t *testing.T) {
		url, stop, _ := startAgent(t, &Agent{})
		var once sync.Once
		rm := &Remote{Token: testToken, URL: url, Poll: 20 * time.Millisecond, Lost: 300 * time.Millisecond, Progress: func(st AgentStatus) {
			if st.State == AgentMeasuring {
				once.Do(stop) // the agent goes away mid-trial
			}
		}}
		_, err := rm.Run(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "agent "+url+": lost: no status for 300ms: ") {
			t.Errorf("Run = %v", err)
		}
	})
}
