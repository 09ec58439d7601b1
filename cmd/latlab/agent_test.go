package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agentTokenFile writes the token of the agents a test starts into a
// file of its own, and returns the file.
func agentTokenFile(t *testing.T, token string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const cliToken = "0123456789abcdef0123456789abcdef-cli"

// TestAgentBadInput holds latlab agent's bad flags and arguments to usage
// errors that name them.
func TestAgentBadInput(t *testing.T) {
	tok := agentTokenFile(t, cliToken)
	short := agentTokenFile(t, "secret-db-password=hunter2")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"agent", "x"}, `agent takes no arguments, got "x"`},
		{[]string{"agent"}, "--token-file: give the file of the token this agent's controller presents (at least 32 characters)"},
		{[]string{"agent", "--token-file", short}, "--token-file: " + short + ": a token of 26 characters; want at least 32"},
		{[]string{"agent", "--token-file", tok + ".none"}, "--token-file: open " + tok + ".none: no such file or directory"},
		{[]string{"agent", "--token-file", tok, "--idle", "0s"}, "--idle and --lifetime: want positive durations, got 0s and 24h0m0s"},
		{[]string{"agent", "--token-file", tok, "--lifetime", "-1s"}, "--idle and --lifetime: want positive durations"},
		{[]string{"agent", "--token-file", tok, "--listen", "127.0.0.1:99999"}, "--listen: "},
		{[]string{"agent", "--token-file", tok, "--otlp-http", "4318"}, "--otlp-http: address 4318: missing port in address"},
		{[]string{"agent", "--token-file", tok, "--otlp-grpc", "localhost"}, "--otlp-grpc: address localhost: missing port in address"},
	} {
		code, stdout, stderr := runCLI(t, tt.args...)
		checkUsageError(t, code, stdout, stderr, tt.want)
	}
}

// TestAgentExits holds latlab agent to ending by itself: exit 1 after
// --idle without a request, saying so, and 0 once told to exit.
func TestAgentExits(t *testing.T) {
	tok := agentTokenFile(t, cliToken)
	code, stdout, stderr := runCLI(t, "agent", "--token-file", tok, "--listen", "127.0.0.1:0", "--idle", "100ms")
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, "latlab: agent: no request from a controller for the idle time (100ms)\n") ||
		!strings.Contains(stderr, "latlab agent: listening on 127.0.0.1:") {
		t.Errorf("an agent no one calls: exit %d, stdout %q, stderr %q; want 1, its address and why it ended", code, stdout, stderr)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	codes := make(chan int, 1)
	go func() {
		var out, errb bytes.Buffer
		codes <- run(ctx, []string{"agent", "--listen", addr, "--token-file", tok}, &out, &errb)
	}()
	exit := func(token string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/exit", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Latlab-Agent-Token", token)
		}
		return http.DefaultClient.Do(req)
	}
	for {
		// A stranger cannot end it.
		resp, err := exit("")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("POST /exit without the token: %s, want 401", resp.Status)
			}
			resp, err := exit(cliToken)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("POST /exit: %s", resp.Status)
			}
			break
		}
		select {
		case code := <-codes:
			t.Fatalf("the agent exited %d before answering", code)
		case <-ctx.Done():
			t.Fatal(fmt.Errorf("no answer from the agent: %w", err))
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case code := <-codes:
		if code != exitOK {
			t.Errorf("told to exit: exit %d, want 0", code)
		}
	case <-ctx.Done():
		t.Fatal("the agent did not exit once told to")
	}
}

// TestAgentHelp holds latlab agent's help to its API and flags.
func TestAgentHelp(t *testing.T) {
	code, stdout, stderr := runCLI(t, "agent", "--help")
	if code != exitOK || stderr != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	for _, w := range []string{"Usage:\n  latlab agent [flags]", "GET  /healthz", "POST /trial ", "GET  /result", "POST /exit",
		"--listen string", "--token-file string", "Latlab-Agent-Token", "--idle duration", "--lifetime duration", "--otlp-http string", "--otlp-grpc string", "points (the trace", "Examples:\n"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("help does not contain %q:\n%s", w, stdout)
		}
	}
}

// TestAgentTraces holds latlab agent to receiving spans where
// --otlp-http and --otlp-grpc say, and saying where, and to failing,
// saying why, when it cannot.
func TestAgentTraces(t *testing.T) {
	tok := agentTokenFile(t, cliToken)
	code, stdout, stderr := runCLI(t, "agent", "--token-file", tok, "--listen", "127.0.0.1:0", "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "127.0.0.1:0", "--idle", "100ms")
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, "latlab agent: receiving spans over OTLP/HTTP at http://127.0.0.1:") ||
		!strings.Contains(stderr, "latlab agent: receiving spans over OTLP/gRPC at 127.0.0.1:") {
		t.Errorf("an agent receiving spans: exit %d, stdout %q, stderr %q; want 1 once idle, and where it receives them", code, stdout, stderr)
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	code, stdout, stderr = runCLI(t, "agent", "--token-file", tok, "--listen", "127.0.0.1:0", "--otlp-http", busy.Addr().String())
	if want := "latlab: agent: starting the trace receiver: trace receiver: listening on " + busy.Addr().String() + ": "; code != exitFailure || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("an agent whose OTLP/HTTP address is taken: exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, want)
	}
}
