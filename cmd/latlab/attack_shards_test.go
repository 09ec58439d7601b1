package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/store"
)

// TestAttackShardsLocal sends one open-loop attack from three local
// shards: together they send the asked schedule, no more, no less; the
// merged result is the sum of the shards', histogram bucket by bucket;
// each shard is kept with its clock offset, within its bound on one
// machine.
func TestAttackShardsLocal(t *testing.T) {
	bin := buildLatlab(t)
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	db := filepath.Join(t.TempDir(), "out.db")
	cmd := exec.Command(bin, "attack", srv.URL, "--shards", "3", "--local", "-r", "300", "-d", "2s", "--format", "json", "-o", db)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("latlab attack --shards 3 --local: %v\n%s", err, stderr.String())
	}
	// Every request of the schedule is sent, or counted unsent by a
	// generator a busy machine held back at the end.
	var out struct {
		Requests, Sent, Unsent int64
		Shards                 []struct{ Index int }
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Sent+out.Unsent != 600 || out.Requests != out.Sent {
		t.Fatalf("JSON %v, %+v; want the 600 the schedule holds, each sent completed\n%s", err, out, stdout.String())
	}
	if len(out.Shards) != 3 {
		t.Errorf("JSON: %d shards; want 3\n%s", len(out.Shards), stdout.String())
	}
	ctx := context.Background()
	d, runs := onlyExperiment(t, db)
	if len(runs) != 1 || runs[0].Status != store.Done {
		t.Fatalf("runs %+v; want one done", runs)
	}
	// The level is the attack's, as from one generator: the shards' rates
	// and caps add up to it.
	if l := runs[0].Level; l.Rate != 300 || l.Concurrency != 10000 {
		t.Errorf("level %s; want 300/s with the default cap of 10000 in flight", l)
	}
	merged, err := d.Totals(ctx, runs[0].ID, store.Measure)
	if err != nil {
		t.Fatal(err)
	}
	shards, err := d.Shards(ctx, runs[0].ID)
	if err != nil || len(shards) != 3 {
		t.Fatalf("shards %+v, %v; want 3", shards, err)
	}
	var requests int64
	counts := map[int64]int64{} // latency bucket → count, over the shards
	for _, s := range shards {
		if s.Result == nil || s.Error != "" {
			t.Fatalf("shard %d: result %v, error %q", s.Index, s.Result != nil, s.Error)
		}
		if s.Offset < -s.OffsetBound || s.Offset > s.OffsetBound {
			t.Errorf("shard %d: clock offset %s beyond its bound %s on one machine", s.Index, s.Offset, s.OffsetBound)
		}
		if !strings.HasPrefix(s.Name, "pid ") || s.Start.IsZero() {
			t.Errorf("shard %d: name %q, start %s", s.Index, s.Name, s.Start)
		}
		// Shard i sends requests i, i+3, ... of the 600.
		if got := s.Result.Sent + s.Result.Unsent; got != 200 {
			t.Errorf("shard %d: %d requests due; want 200", s.Index, got)
		}
		requests += s.Result.Requests
		for _, b := range s.Result.Latency.Distribution() {
			counts[b.From] += b.Count
		}
	}
	if requests != out.Requests || merged.Latency.TotalCount() != out.Requests || runs[0].Summary == nil || runs[0].Summary.Requests != out.Requests {
		t.Errorf("shards' requests %d, merged run %+v with %d latencies; want %d each", requests, runs[0].Summary, merged.Latency.TotalCount(), out.Requests)
	}
	for _, b := range merged.Latency.Distribution() {
		if counts[b.From] != b.Count {
			t.Errorf("latency bucket from %d ns: merged %d, shards' sum %d", b.From, b.Count, counts[b.From])
		}
		delete(counts, b.From)
	}
	for from, n := range counts {
		if n != 0 {
			t.Errorf("latency bucket from %d ns: %d in the shards, none merged", from, n)
		}
	}
}

// TestAttackShardsText prints a line per shard after the merged result,
// and writes the shards to -o FILE.json.
func TestAttackShardsText(t *testing.T) {
	bin := buildLatlab(t)
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	path := filepath.Join(t.TempDir(), "out.json")
	cmd := exec.Command(bin, "attack", srv.URL, "--shards", "2", "--local", "-r", "100", "-d", "1s", "-o", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("latlab attack --shards 2 --local: %v\n%s", err, stderr.String())
	}
	_, block, ok := strings.Cut(stdout.String(), "\nShards     2, started within ")
	if !ok {
		t.Fatalf("no shards block:\n%s", stdout.String())
	}
	var shards []string
	for line := range strings.Lines(block) {
		if f := strings.Fields(line); len(f) > 2 && f[0] == strconv.Itoa(len(shards)) && f[1] == "pid" {
			shards = append(shards, line)
		}
	}
	if len(shards) != 2 {
		t.Errorf("%d lines of shards; want 2:\n%s", len(shards), stdout.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Shards []struct{ Sent int64 }
		Spread *float64 `json:"shard_start_spread_seconds"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Shards) != 2 || out.Spread == nil {
		t.Errorf("%s: %v, %+v; want 2 shards and the spread of their starts\n%s", path, err, out, data)
	}
}

// TestAttackShardLost kills one shard's process while the attack runs:
// the attack ends with exit 1 within the bound, naming the shard, and no
// agent outlives it.
func TestAttackShardLost(t *testing.T) {
	bin := buildLatlab(t)
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	cmd := exec.Command(bin, "attack", srv.URL, "--shards", "2", "--local", "-r", "50", "-d", "60s")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	// Both agents running, and the load under way: the server saw some.
	var agents []int
	deadline := time.Now().Add(time.Minute)
	for {
		agents = children(cmd.Process.Pid, "agent")
		srv.mu.Lock()
		seen := len(srv.seen)
		srv.mu.Unlock()
		if len(agents) == 2 && seen > 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: agents %v, %d requests seen\n%s", agents, seen, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := syscall.Kill(agents[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the attack still runs 2 minutes after a shard was killed\n%s", stderr.String())
	}
	if took := time.Since(killed); took > 10*time.Second+5*time.Second {
		t.Errorf("the attack ended %s after a shard was killed; the bound is 10 s", took)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit %v; want 1", err)
	}
	want := "pid " + strconv.Itoa(agents[1])
	if !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "lost") {
		t.Errorf("stderr does not name the lost shard (%s):\n%s", want, stderr.String())
	}
	if left := children(cmd.Process.Pid, "agent"); len(left) > 0 {
		t.Errorf("agents %v outlive the attack", left)
	}
}

// children returns the processes whose parent is pid and whose command
// line holds arg.
func children(pid int, arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(pid) || f[0] == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if bytes.Contains(cmdline, []byte("\x00"+arg+"\x00")) {
			out = append(out, p)
		}
	}
	return out
}

// TestRunShards runs a spec whose load is split over two local shards:
// each run holds the schedule's requests, merged, and keeps its shards,
// which sum to it.
func TestRunShards(t *testing.T) {
	bin := buildLatlab(t)
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(`version: 1
name: sharded
variants: [{name: web, target: "`+srv.URL+`/"}]
load: {mode: open, rates: [200], duration: 1s, shards: 2, clock_skew: 50ms}
warmup: {duration: 200ms}
runs: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "results.db")
	if out, err := exec.Command(bin, "run", spec, "-o", db, "-q").CombinedOutput(); err != nil {
		t.Fatalf("latlab run: %v\n%s", err, out)
	}
	ctx := context.Background()
	d, runs := onlyExperiment(t, db)
	if len(runs) != 2 {
		t.Fatalf("runs %+v; want 2", runs)
	}
	for _, r := range runs {
		if r.Status != store.Done || r.Summary == nil || r.Summary.Sent+r.Summary.Unsent != 200 || r.Warmup == nil {
			t.Errorf("run %d: %s, %+v; want the 200 requests due, after a warm-up", r.ID, r.Status, r.Summary)
			continue
		}
		for _, f := range r.Flags {
			if f.Name == "shard_lost" || f.Name == "clock_skew" {
				t.Errorf("run %d: flag %s: %s", r.ID, f.Name, f.Reason)
			}
		}
		shards, err := d.Shards(ctx, r.ID)
		if err != nil || len(shards) != 2 {
			t.Fatalf("run %d: shards %+v, %v; want 2", r.ID, shards, err)
		}
		if shards[0].Result == nil || shards[1].Result == nil || shards[0].Result.Requests+shards[1].Result.Requests != r.Summary.Requests {
			t.Errorf("run %d: shards' results do not sum to the run's %d requests", r.ID, r.Summary.Requests)
		}
	}
	// The text report shows the representative run's two shards, the
	// JSON report both runs' shards.
	text, err := exec.Command(bin, "report", db).CombinedOutput()
	if err != nil {
		t.Fatalf("latlab report: %v\n%s", err, text)
	}
	_, table, _ := strings.Cut(string(text), "\nShards of each variant's representative run")
	var rows int
	for line := range strings.Lines(table) {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "web" && f[3] == "pid" {
			rows++
		}
	}
	if rows != 2 || !strings.Contains(table, "2 shards: started within") {
		t.Errorf("latlab report: %d rows of shards; want 2, and the spread of their starts:\n%s", rows, text)
	}
	js, err := exec.Command(bin, "report", db, "--format", "json").Output()
	if err != nil {
		t.Fatalf("latlab report --format json: %v", err)
	}
	var rep struct {
		ShardedRuns []struct{ Shards []json.RawMessage } `json:"sharded_runs"`
	}
	if err := json.Unmarshal(js, &rep); err != nil || len(rep.ShardedRuns) != 2 || len(rep.ShardedRuns[0].Shards) != 2 || len(rep.ShardedRuns[1].Shards) != 2 {
		t.Errorf("latlab report --format json: %v; want 2 runs of 2 shards each:\n%s", err, js)
	}
}

// onlyExperiment opens the results database db for reading, until the
// test's end, and returns it and the runs of the one experiment it
// holds.
func onlyExperiment(t *testing.T, db string) (*store.DB, []store.Run) {
	t.Helper()
	ctx := context.Background()
	d, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	exps, err := d.Experiments(ctx)
	if err != nil || len(exps) != 1 {
		t.Fatalf("experiments %v, %v; want one", exps, err)
	}
	runs, err := d.Runs(ctx, exps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return d, runs
}
