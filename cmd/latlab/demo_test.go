package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/store"
)

func TestDemoBadInput(t *testing.T) {
	file := writeIn(t, t.TempDir(), "file", "not a folder\n")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"argument", []string{"demo", "extra"}, []string{"no arguments", `"extra"`, "-o"}},
		{"folder under a file", []string{"demo", "-o", filepath.Join(file, "demo")}, []string{"demo folder", file}},
		{"unknown flag", []string{"demo", "--rates", "10"}, []string{"unknown flag: --rates"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
}

// TestDemoInterrupt sends SIGINT to latlab demo once its first trial is
// under way: it must exit 130 saying how to resume, store the trial as
// interrupted, and leave no graph node behind.
func TestDemoInterrupt(t *testing.T) {
	bin := buildLatlab(t)
	dir := filepath.Join(t.TempDir(), "demo")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "demo", "--quick", "-o", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// The nodes say where they listen once the graph is up; the trial is
	// under way once one of them has served the load's route, however
	// long a busy machine takes to get there.
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "nodes.log"))
		if servedLoad(string(b)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no graph node served the load in a minute\nnodes.log:\n%s\nstderr:\n%s", b, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Each node's command line names its topology file, in the folder.
	nodes := filepath.Join(dir, "graphs")
	if len(processesWith(nodes)) == 0 {
		t.Fatal("no graph node runs with the demo's folder in its command line; the check below would pass for nothing")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("latlab demo still running 15 s after SIGINT\nstderr:\n%s", stderr.String())
	}
	if code := exitCode(t, err); code != exitInterrupted {
		t.Errorf("exit code %d, want %d\nstderr:\n%s", code, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stdout.String(), "run the same command again to resume") {
		t.Errorf("stdout %q does not say how to resume", stdout.String())
	}
	for _, p := range processesWith(nodes) {
		t.Errorf("process %d outlived latlab demo", p)
		_ = syscall.Kill(p, syscall.SIGKILL)
	}

	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exps, err := db.Experiments(ctx)
	if err != nil || len(exps) != 1 {
		t.Fatalf("experiments %+v (%v), want the ramp's alone", exps, err)
	}
	runs, err := db.Runs(ctx, exps[0].ID)
	if err != nil || len(runs) != 1 || runs[0].Status != store.Interrupted {
		t.Fatalf("runs %+v (%v), want one interrupted", runs, err)
	}
}

var (
	listeningRE  = regexp.MustCompile(`listening on (http://\S+)`)
	servedRootRE = regexp.MustCompile(`(?m)^latlab_server_request_duration_seconds_count\{[^}]*route="/"[^}]*\} (\S+)$`)
)

// servedLoad reports whether a node that log says listens has served a
// request on route "/", the demo's load; readiness checks and scrapes go
// to /healthz and /metrics.
func servedLoad(log string) bool {
	for _, m := range listeningRE.FindAllStringSubmatch(log, -1) {
		resp, err := http.Get(m[1] + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, c := range servedRootRE.FindAllStringSubmatch(string(b), -1) {
			if c[1] != "0" {
				return true
			}
		}
	}
	return false
}
