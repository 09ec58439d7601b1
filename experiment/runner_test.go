package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/store"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func openDB(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func targetSpec(a, b string, rates string) string {
	return fmt.Sprintf(`version: 1
name: two-targets
variants:
  - {name: fast, target: "%s/"}
  - {name: slow, target: "%s/"}
load: {mode: open, rates: %s, duration: 300ms}
runs: 2
seed: 7
probes:
  process: {pids: [%d]}
`, a, b, rates, os.Getpid())
}

// TestRunnerResume runs a plan of two external targets, runs it again (all
// done: nothing to do), and refuses a changed spec unless told to start a
// new experiment.
func TestRunnerResume(t *testing.T) {
	var hits atomic.Int64
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer fast.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		time.Sleep(2 * time.Millisecond)
	}))
	defer slow.Close()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "results.db")
	spec := remotetest.WriteSpec(t, dir, targetSpec(fast.URL, slow.URL, "[50, 100]"))
	db := openDB(t, dbPath)
	out, err := (&Runner{Spec: spec, DB: db}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Trials != 8 || out.Done != 8 || out.Failed != 0 || out.Resumed {
		t.Fatalf("outcome %+v, want 8 trials done in a new experiment", out)
	}
	runs, err := db.Runs(context.Background(), out.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sent, unsent, completed int64
	for _, r := range runs {
		if r.Status != store.Done {
			t.Errorf("run %s: status %s", r.Trial, r.Status)
		}
		sent, unsent, completed = sent+r.Summary.Sent, unsent+r.Summary.Unsent, completed+r.Summary.Requests
	}
	// Each trial has rate × 0.3 s due: (15 + 30) × 2 variants × 2 runs.
	// A generator starved by a busy machine may leave some unsent, but
	// counts them; every request sent completed and reached its target.
	if sent+unsent != 180 || completed != sent || hits.Load() != sent {
		t.Errorf("runs hold %d sent (%d completed) and %d unsent, the targets saw %d; want 180 due, every one sent reaching its target",
			sent, completed, unsent, hits.Load())
	}
	probes, err := db.Probes(context.Background(), runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) == 0 {
		t.Error("the process probe stored nothing")
	}

	again, err := (&Runner{Spec: spec, DB: db}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !again.Resumed || again.Skipped != 8 || again.Done != 0 || again.Experiment.ID != out.Experiment.ID {
		t.Errorf("second run %+v, want experiment %d resumed with nothing to do", again, out.Experiment.ID)
	}

	changed := remotetest.WriteSpec(t, dir, targetSpec(fast.URL, slow.URL, "[50, 100, 150]"))
	_, err = (&Runner{Spec: changed, DB: db}).Run(context.Background())
	var ce *ChangedError
	if !errors.As(err, &ce) || !strings.Contains(ce.Diff, "load.rates") {
		t.Fatalf("changed spec: %v, want a ChangedError naming load.rates", err)
	}
	fresh, err := (&Runner{Spec: changed, DB: db, New: true}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Experiment.ID == out.Experiment.ID || fresh.Done != 12 {
		t.Errorf("--new: %+v, want a second experiment with 12 trials done", fresh)
	}
}

// TestRunnerInterrupt stops a plan in its second trial: that trial is
// stored as interrupted, and running again completes the plan with every
// trial once.
func TestRunnerInterrupt(t *testing.T) {
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen.Add(1) }))
	defer srv.Close()
	dir := t.TempDir()
	spec := remotetest.WriteSpec(t, dir, fmt.Sprintf(`version: 1
name: interrupted
variants: [{name: only, target: "%s/"}]
load: {mode: open, rates: [100], duration: 600ms}
runs: 3
`, srv.URL))
	db := openDB(t, filepath.Join(dir, "results.db"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan struct{})
	go interruptSecondTrial(first, &seen, cancel)
	out, err := (&Runner{Spec: spec, DB: db, Log: &trialLog{first: first}}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted || out.Done != 1 {
		t.Fatalf("outcome %+v, want interrupted after 1 trial", out)
	}
	runs, _ := db.Runs(context.Background(), out.Experiment.ID)
	if len(runs) != 2 || runs[1].Status != store.Interrupted {
		t.Fatalf("runs %v, want one done and one interrupted", runs)
	}
	again, err := (&Runner{Spec: spec, DB: db}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again.Done != 2 || again.Skipped != 1 {
		t.Errorf("resumed %+v, want 2 done and 1 skipped", again)
	}
	runs, _ = db.Runs(context.Background(), out.Experiment.ID)
	if len(runs) != 3 {
		t.Errorf("%d runs, want 3, each trial once", len(runs))
	}
	for _, r := range runs {
		if r.Status != store.Done {
			t.Errorf("run %s is %s after resuming", r.Trial, r.Status)
		}
	}
}

// TestRunnerWarmupCounted holds that a run's stored summary counts the
// requests of its warm-up, which runs as an attack of its own before the
// measured one and is stored apart: warmup_requests is the warm-up's
// requests, and with the measured ones they are all the target saw.
func TestRunnerWarmupCounted(t *testing.T) {
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen.Add(1) }))
	defer srv.Close()
	dir := t.TempDir()
	spec := remotetest.WriteSpec(t, dir, fmt.Sprintf(`version: 1
name: warmed
variants: [{name: only, target: "%s/"}]
load: {mode: open, rates: [100], duration: 300ms}
warmup: {duration: 300ms, rate: same}
`, srv.URL))
	db := openDB(t, filepath.Join(dir, "results.db"))
	out, err := (&Runner{Spec: spec, DB: db}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runs, err := db.Runs(context.Background(), out.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Summary == nil || runs[0].Warmup == nil {
		t.Fatalf("runs %+v, want one with a summary and a warm-up", runs)
	}
	sum, warm := runs[0].Summary, runs[0].Warmup
	if warm.Requests < 1 || sum.WarmupRequests != warm.Requests {
		t.Errorf("summary's warmup_requests %d, want the warm-up's %d requests (at least 1)", sum.WarmupRequests, warm.Requests)
	}
	if got, want := seen.Load(), sum.WarmupRequests+sum.Sent; got != want {
		t.Errorf("the target saw %d requests, want %d: %d of the warm-up and %d measured", got, want, sum.WarmupRequests, sum.Sent)
	}
}

// TestRunnerGraph runs a graph variant with warm-up and probes: latlab
// starts the graph's nodes, scrapes them, and stops them at the end.
func TestRunnerGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("builds latlab and starts a graph; make test runs it")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "latlab")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/latlab").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "graph.yaml"), []byte(`services:
  - name: front
    script: [{busywork: 1ms}, {call: back}]
  - name: back
    script: [{sleep: 1ms}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "grpc.yaml"), []byte(`services:
  - {name: front, protocol: grpc, script: [{busywork: 1ms}, {call: back}]}
  - {name: back, protocol: grpc, script: [{sleep: 1ms}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	spec := remotetest.WriteSpec(t, dir, fmt.Sprintf(`version: 1
name: graph
variants:
  - name: grpc
    graph: grpc.yaml
  - name: chain
    graph: graph.yaml
    # A graph's setup runs before its nodes start, its teardown after they stop.
    setup: "touch set-up"
    teardown: "test -f set-up && touch torn-down"
  - name: started
    target: "http://127.0.0.1:%[2]d/"
    start: "%[1]s serve --listen 127.0.0.1:%[2]d"
    # Runs once the server answers: its first request is one.
    configure: "%[1]s attack http://127.0.0.1:%[2]d/healthz -n 1 --format json -o configured.json"
load: {mode: open, rates: [50], duration: 2s}
warmup: {duration: 300ms, rate: same}
probes:
  metrics: {interval: 500ms, window: 1s}
  traces: true
`, bin, port))
	db := openDB(t, filepath.Join(dir, "results.db"))
	out, err := (&Runner{Spec: spec, DB: db, Binary: bin}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Done != 3 {
		t.Fatalf("outcome %+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "configured.json")); err != nil || !bytes.Contains(b, []byte(`"success_ratio": 1`)) {
		t.Errorf("the configure command's request, in the spec's folder: %s, %v; want one success", b, err)
	}
	for _, f := range []string{"set-up", "torn-down"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the graph variant's setup and teardown: %v", err)
		}
	}
	// Torn down: the started server no longer listens.
	if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", port)); err == nil {
		resp.Body.Close()
		t.Error("the variant's start command still runs after the experiment")
	}
	runs, _ := db.Runs(context.Background(), out.Experiment.ID)
	var r, g store.Run
	for _, x := range runs {
		if x.Variant == "grpc" {
			g = x
		}
		// 2 s at 50/s: 100 due, each sent or, by a generator a busy
		// machine starved, counted unsent.
		if x.Variant == "started" && (x.Status != store.Done || x.Summary.Sent+x.Summary.Unsent != 100) {
			t.Errorf("started variant: %s, %+v", x.Status, x.Summary)
		}
		if x.Variant == "chain" {
			r = x
		}
	}
	// The warm-up has 300 ms at 50/s due, 15 requests; the first is due at
	// once, so at least it is sent and completes.
	if r.Summary.Sent+r.Summary.Unsent != 100 || r.Summary.Requests != r.Summary.Sent ||
		r.Warmup == nil || r.Warmup.Sent+r.Warmup.Unsent != 15 || r.Warmup.Requests < 1 {
		t.Errorf("run: %d sent, %d unsent, %d completed, warm-up %+v; want 100 due, each sent one completed, and 15 due in the warm-up",
			r.Summary.Sent, r.Summary.Unsent, r.Summary.Requests, r.Warmup)
	}
	// A graph entered over gRPC takes calls of Run, each OK.
	if g.Summary.Requests == 0 || g.Summary.StatusCodes["OK"] != g.Summary.Requests {
		t.Errorf("grpc variant: %d completed, codes %v; want every one OK", g.Summary.Requests, g.Summary.StatusCodes)
	}
	checkProbes(t, db, r)
	checkProbes(t, db, g)
}

// checkProbes checks that run r of a graph variant stored metrics, process
// and trace points: its nodes were scraped, watched and traced.
func checkProbes(t *testing.T, db *store.DB, r store.Run) {
	t.Helper()
	probes, _ := db.Probes(context.Background(), r.ID)
	var metrics, process, traces int
	for _, p := range probes {
		switch p.Probe {
		case "metrics":
			metrics++
		case "process":
			process++
		case "traces":
			traces++
		}
	}
	// Each request sent has a front → back hop: network and framework
	// times for most of them, at least one point a request in all.
	if metrics == 0 || process == 0 || int64(traces) < r.Summary.Sent {
		t.Errorf("%s: stored %d metrics, %d process and %d trace points, want all three (traces ≥ %d sent)", r.Variant, metrics, process, traces, r.Summary.Sent)
	}
}

// trialLog closes first when the runner logs its first finished trial,
// before it starts the next.
type trialLog struct {
	first chan struct{}
	once  sync.Once
}

func (l *trialLog) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("trial ")) {
		l.once.Do(func() { close(l.first) })
	}
	return len(p), nil
}

// interruptSecondTrial calls cancel once the first trial has finished and
// the target has seen the second's load, however long a busy machine
// takes to get there; after a minute it cancels anyway, and the test fails
// on what it finds.
func interruptSecondTrial(first <-chan struct{}, seen *atomic.Int64, cancel context.CancelFunc) {
	defer cancel()
	select {
	case <-first:
	case <-time.After(time.Minute):
		return
	}
	deadline := time.Now().Add(time.Minute)
	for n := seen.Load(); seen.Load() < n+5 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// TestStartRefusesALeftover: a variant whose start command would start a
// server where something already listens — what an earlier, killed run
// left — fails its trial saying so, rather than measuring the leftover.
func TestStartRefusesALeftover(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dir := t.TempDir()
	spec := remotetest.WriteSpec(t, dir, fmt.Sprintf(`version: 1
name: leftover
variants:
  - {name: again, target: "http://%s/", start: "sleep 30"}
load: {mode: open, rates: [10], duration: 1s}
`, ln.Addr()))
	db := openDB(t, filepath.Join(dir, "results.db"))
	out, err := (&Runner{Spec: spec, DB: db}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := db.Runs(context.Background(), out.Experiment.ID)
	want := ln.Addr().String() + " already accepts connections before its start command ran"
	if len(runs) != 1 || runs[0].Status != store.Failed || !strings.Contains(runs[0].Error, want) {
		t.Errorf("runs %+v; want one failed, saying %q", runs, want)
	}
}
