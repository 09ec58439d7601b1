package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
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

// TestVersion runs latlab version and latlab --version: the same text,
// whose first line names the version, then the commit (or why there is
// none) and the Go version.
func TestVersion(t *testing.T) {
	var outs []string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runCLI(t, args...)
		re := regexp.MustCompile(`^latlab \S+.*\ncommit:  .+\ngo:      go1\.\S+ \w+/\w+\n$`)
		if code != exitOK || stderr != "" || !re.MatchString(stdout) {
			t.Errorf("latlab %s: exit %d, stdout %q, stderr %q; want 0, the version, commit and Go lines, nothing", args[0], code, stdout, stderr)
		}
		outs = append(outs, stdout)
	}
	if outs[0] != outs[1] {
		t.Errorf("latlab version printed %q, latlab --version %q; want the same", outs[0], outs[1])
	}
}

// TestDescribeBuild checks what latlab version says of builds that record
// everything, part of it or nothing.
func TestDescribeBuild(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "16cd6f8c0ffee"},
		{Key: "vcs.time", Value: "2026-11-23T22:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tt := range []struct {
		name, version string
		bi            *debug.BuildInfo
		want          string
	}{
		{"nothing recorded", "dev", nil, "latlab dev (no version stamped at build time)\n" +
			"commit:  unknown: built without version control information (-buildvcs=false, or not in a git checkout)\n" +
			"go:      go1.26.0 linux/amd64\n"},
		{"-buildvcs=false, stamped by make", "v1.2.0-3-g16cd6f8-dirty",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "latlab v1.2.0-3-g16cd6f8-dirty\n" +
				"commit:  unknown: built without version control information (-buildvcs=false, or not in a git checkout)\n" +
				"go:      go1.26.0 linux/amd64\n"},
		{"go install MODULE@VERSION", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}},
			"latlab v1.2.0\ncommit:  unknown: built without version control information (-buildvcs=false, or not in a git checkout)\n" +
				"go:      go1.26.0 linux/amd64\n"},
		{"from a modified checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			"latlab dev (no version stamped at build time)\n" +
				"commit:  16cd6f8c0ffee, committed 2026-11-23T22:00:00Z, with uncommitted changes\n" +
				"go:      go1.26.0 linux/amd64\n"},
		{"from a clean checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261123220000-16cd6f8c0ffe"},
			Settings: append(vcs[:3:3], debug.BuildSetting{Key: "vcs.modified", Value: "false"})},
			"latlab v0.0.0-20261123220000-16cd6f8c0ffe\n" +
				"commit:  16cd6f8c0ffee, committed 2026-11-23T22:00:00Z, clean tree\n" +
				"go:      go1.26.0 linux/amd64\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeBuild(tt.version, tt.bi, "go1.26.0 linux/amd64"); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestVersionStamped builds latlab as make build does, with the version
// given to the linker, and checks that latlab version prints it.
func TestVersionStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds latlab; make test runs it")
	}
	bin := filepath.Join(t.TempDir(), "latlab")
	const v = "v9.8.7-test"
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version="+v, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "latlab "+v+"\n") {
		t.Errorf("latlab --version: %v, %q; want it to start with \"latlab %s\"", err, out, v)
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
