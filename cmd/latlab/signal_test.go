package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// buildLatlab builds the command once per test into a temporary folder.
func buildLatlab(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds latlab to run it as a process; make test runs the tests that do")
	}
	bin := filepath.Join(t.TempDir(), "latlab")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestSignals sends real SIGINTs to the binary: the first drains and prints
// the partial result (exit 130); a second, while requests hang, leaves at
// once.
func TestSignals(t *testing.T) {
	bin := buildLatlab(t)
	var seen atomic.Int64 // requests either server was sent
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		time.Sleep(100 * time.Millisecond)
	}))
	defer slow.Close()
	hang := make(chan struct{})
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer stuck.Close()
	defer close(hang)

	tests := []struct {
		name    string
		url     string
		signals int
		within  time.Duration
		json    bool
	}{
		// Far less than the 60 s the attack and its requests would take.
		{"first drains", slow.URL, 1, 10 * time.Second, true},
		{"second exits at once", stuck.URL, 2, 10 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, "attack", tt.url, "-c", "2", "-d", "60s", "--timeout", "60s", "--format", "json")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once both workers' requests reach the server, so
			// that the attack is under way however slowly it started.
			for n, deadline := seen.Load(), time.Now().Add(time.Minute); seen.Load() < n+2; {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the attack sent no requests in a minute")
				}
				time.Sleep(5 * time.Millisecond)
			}
			start := time.Now()
			for i := 0; i < tt.signals; i++ {
				cmd.Process.Signal(os.Interrupt)
				time.Sleep(200 * time.Millisecond)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := exitCode(t, err); code != exitInterrupted {
					t.Errorf("exit code %d, want %d; stderr:\n%s", code, exitInterrupted, stderr.String())
				}
			case <-time.After(tt.within):
				cmd.Process.Signal(syscall.SIGKILL)
				t.Fatalf("still running %s after the signal", time.Since(start))
			}
			if !tt.json {
				return
			}
			var got struct {
				Interrupted bool  `json:"interrupted"`
				Requests    int64 `json:"requests"`
				Sent        int64 `json:"sent"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("stdout is not the JSON result: %v\n%s", err, stdout.String())
			}
			if !got.Interrupted || got.Requests == 0 || got.Requests != got.Sent {
				t.Errorf("interrupted %v, requests %d of %d sent; want true and all sent requests finished", got.Interrupted, got.Requests, got.Sent)
			}
		})
	}
}
