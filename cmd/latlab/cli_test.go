package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// result is what one run of latlab returned.
type result struct {
	code           int
	stdout, stderr string
}

// runAsync runs latlab with args in the background and returns a channel
// that receives its result.
func runAsync(ctx context.Context, args ...string) <-chan result {
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	return done
}

// drainLimit bounds how long an interrupted attack may take to stop: far
// less than the 30 s the interrupted attacks would otherwise run, far more
// than draining their requests takes even on a busy machine.
const drainLimit = 10 * time.Second

// interruptOnceSeen calls cancel once srv has seen n requests, so that an
// interrupted attack has measured something however slowly it started,
// and returns when it has. It fails the test if srv sees fewer in a minute.
func interruptOnceSeen(t *testing.T, srv *testServer, n int, cancel context.CancelFunc) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); len(srv.requests()) < n; {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server saw %d requests in a minute, want %d", len(srv.requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
}

// await waits up to limit for the run.
func await(t *testing.T, done <-chan result, limit time.Duration) result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(limit):
		t.Fatalf("latlab still running after %s", limit)
		return result{}
	}
}

func TestAttackInterrupt(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 50*time.Millisecond)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := runAsync(ctx, "attack", srv.URL, "-d", "30s", "-c", "4", "--format", "json")
	interruptOnceSeen(t, srv, 4, cancel)
	r := await(t, done, drainLimit)

	if r.code != exitInterrupted || r.stderr != "" {
		t.Errorf("exit %d, stderr %q; want %d and nothing", r.code, r.stderr, exitInterrupted)
	}
	sum := decodeSummary(t, []byte(r.stdout))
	if !sum.Interrupted || sum.Requests < 1 || sum.Sent != sum.Requests || sum.SuccessRatio != 1 {
		t.Errorf("interrupted %v, sent %d, requests %d, success ratio %g; want true, all sent completed, > 0, 1",
			sum.Interrupted, sum.Sent, sum.Requests, sum.SuccessRatio)
	}
	if n := int64(len(srv.requests())); n != sum.Requests {
		t.Errorf("server saw %d requests, want the %d reported: requests in flight finish", n, sum.Requests)
	}
}

func TestAttackInterruptText(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 10*time.Millisecond)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := runAsync(ctx, "attack", srv.URL, "-r", "100", "-d", "30s")
	interruptOnceSeen(t, srv, 1, cancel)
	r := await(t, done, drainLimit)
	if r.code != exitInterrupted || !regexp.MustCompile(`(?m)^Status +interrupted: partial result$`).MatchString(r.stdout) {
		t.Errorf("exit %d, stdout:\n%s\nwant %d and a Status line saying interrupted", r.code, r.stdout, exitInterrupted)
	}
}

func TestAttackInterruptWarmup(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	path := filepath.Join(t.TempDir(), "run.json")
	done := runAsync(ctx, "attack", srv.URL, "-c", "2", "--warmup", "10s", "-d", "10s", "--format", "json", "-o", path)
	interruptOnceSeen(t, srv, 1, cancel)
	r := await(t, done, drainLimit)
	if r.code != exitInterrupted || r.stderr != "" {
		t.Errorf("exit %d, stderr %q; want %d and nothing", r.code, r.stderr, exitInterrupted)
	}
	sum := decodeSummary(t, []byte(r.stdout))
	if !sum.Interrupted || sum.Requests != 0 || sum.WarmupRequests < 1 {
		t.Errorf("interrupted %v, requests %d, warm-up requests %d; want true, 0, > 0", sum.Interrupted, sum.Requests, sum.WarmupRequests)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.stdout, string(file)); diff != "" {
		t.Errorf("%s differs from stdout (-stdout +file):\n%s", path, diff)
	}
}

func TestAttackTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select { // never answer
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for handlers

	done := runAsync(t.Context(), "attack", srv.URL, "--timeout", "200ms", "-n", "3", "-c", "3", "--format", "json")
	r := await(t, done, 2*time.Second)
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	sum := decodeSummary(t, []byte(r.stdout))
	type outcome struct {
		Requests     int64
		SuccessRatio float64
		Codes        map[string]int64
		Errors       map[string]int64
	}
	want := outcome{3, 0, nil, map[string]int64{"timeout": 3}}
	got := outcome{sum.Requests, sum.SuccessRatio, sum.StatusCodes, sum.Errors}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if sum.ServiceTime.Min == nil || *sum.ServiceTime.Min < 0.2 {
		t.Errorf("service time min %v, want at least the 200 ms timeout", sum.ServiceTime.Min)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := runCLI(t, "version")
	if code != exitOK || stderr != "" || !regexp.MustCompile(`^latlab \S+ .*go1\.\S+ \w+/\w+\n$`).MatchString(stdout) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, one line \"latlab VERSION ... GOVERSION OS/ARCH\", nothing", code, stdout, stderr)
	}
}

func TestHelpAndCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"completion", "bash"}, []string{"bash completion", "__start_latlab", "complete -o default -F __start_latlab latlab"}},
		{[]string{"completion", "zsh"}, []string{"#compdef latlab"}},
		{[]string{"attack", "--help"}, []string{"Usage:\n  latlab attack [URL]", "Examples:\n", "  latlab attack http://127.0.0.1:8080/", "--arrivals string"}},
		{[]string{"help", "attack"}, []string{"Examples:\n", "  latlab attack --scenario crud.yaml"}},
		{[]string{"--help"}, []string{"Examples:\n", "  latlab attack http://127.0.0.1:8080/", "attack ", "version "}},
		{[]string{"version", "--help"}, []string{"Examples:\n  latlab version\n"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitOK || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout does not contain %q:\n%s", w, stdout)
				}
			}
		})
	}
}
