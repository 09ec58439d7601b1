package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestStallAtDeadline stops the whole process with SIGSTOP across the end
// of an open-loop run, as a busy machine or a debugger would: every
// request due before the end is sent or counted unsent, never lost, on
// every path the open loop takes (event loops, net/http, TLS).
func TestStallAtDeadline(t *testing.T) {
	bin := buildLatlab(t)
	var first atomic.Int64 // unix nanoseconds of the first request of a try
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.CompareAndSwap(0, time.Now().UnixNano())
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(handler)
	defer tlsSrv.Close()

	paths := []struct {
		name string
		args []string
	}{
		{"event loops", []string{plain.URL}},
		{"net/http", []string{plain.URL, "--client", "nethttp"}},
		{"TLS", []string{tlsSrv.URL, "--insecure"}},
	}
	const due = 200 // 100/s for 2 s
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			for try := range 3 {
				first.Store(0)
				var stdout, stderr bytes.Buffer
				args := append([]string{"attack"}, p.args...)
				cmd := exec.Command(bin, append(args, "-r", "100", "-d", "2s", "--format", "json")...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				for deadline := time.Now().Add(time.Minute); first.Load() == 0; time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatalf("no request in a minute; stderr:\n%s", stderr.String())
					}
				}
				// Stop it from 70 ms before the end to 80 ms after, the
				// first request being about the run's start; how late
				// this wakes on a busy machine only moves the stall.
				time.Sleep(time.Until(time.Unix(0, first.Load()).Add(1930 * time.Millisecond)))
				cmd.Process.Signal(syscall.SIGSTOP)
				time.Sleep(150 * time.Millisecond)
				cmd.Process.Signal(syscall.SIGCONT)
				if err := cmd.Wait(); err != nil {
					t.Fatalf("try %d: %v; stderr:\n%s", try, err, stderr.String())
				}
				var got struct{ Sent, Unsent int64 }
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
					t.Fatalf("try %d: stdout is not the JSON result: %v\n%s", try, err, stdout.String())
				}
				if got.Sent+got.Unsent != due {
					t.Errorf("try %d: sent %d + unsent %d = %d; want the %d due", try, got.Sent, got.Unsent, got.Sent+got.Unsent, due)
				}
			}
		})
	}
}
