package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	// The nodes say they listen once the graph is up; the trial begins
	// then, and runs for 8 s.
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "nodes.log"))
		if strings.Count(string(b), "listening") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's graph did not come up within 20 s\nstderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
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
