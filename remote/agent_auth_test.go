package remote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

// TestAgentRefusesStrangers holds that every request of the API but GET
// /healthz, without the agent's token or with another, is answered 401
// and does nothing: no trial starts, nothing stops, the agent still
// serves after POST /exit, and the token is in none of its log.
func TestAgentRefusesStrangers(t *testing.T) {
	s := agentTarget(t, "{mode: open, rates: [20], duration: 1m}")
	b, err := NewBundle(s, spec.Trial{Variant: "v", Level: record.Level{Rate: 20}, Rep: 1, Position: 1}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	bundle, _ := json.Marshal(b)
	var log lockedBuffer
	a := &Agent{Log: &log}
	url, _, _ := startAgent(t, a)
	near := testToken[:len(testToken)-1] + "X"
	for _, token := range []string{"", "wrong", near, strings.ToUpper(testToken), testToken + "0"} {
		for _, rq := range []struct{ method, path, body string }{
			{"POST", "/trial", string(bundle)}, {"GET", "/trial", ""}, {"POST", "/trial/stop", ""},
			{"GET", "/result", ""}, {"GET", "/clock", ""}, {"POST", "/exit", ""}, {"GET", "/nowhere", ""},
		} {
			code, got := agentCallAs(t, token, rq.method, url+rq.path, rq.body)
			if code != http.StatusUnauthorized || !strings.Contains(got, TokenHeader) {
				t.Errorf("%s %s with token %q: %d %q, want 401 naming %s", rq.method, rq.path, token, code, got, TokenHeader)
			}
		}
	}
	if tr := a.current(); tr != nil {
		t.Errorf("a stranger started trial %d", tr.t.Position)
	}
	if code, got := agentCallAs(t, "", "GET", url+"/healthz", ""); code != http.StatusOK || got != "ok\n" {
		t.Errorf("GET /healthz without a token: %d %q, want 200 ok", code, got)
	}
	if st := agentStatus(t, url); st.State != AgentIdle {
		t.Errorf("the controller finds the agent %s, want idle", st.State)
	}
	// Its controller still drives it.
	if code, got := agentCall(t, "POST", url+"/trial", string(bundle)); code != http.StatusAccepted {
		t.Errorf("POST /trial with the token: %d %q", code, got)
	}
	if strings.Contains(log.String(), testToken) {
		t.Errorf("the agent logged its token:\n%s", log.String())
	}
}

// announce sends the head of a POST /trial whose body of size bytes never
// comes, and returns the status the agent answers without it, or "" when
// it answers nothing within a second.
func announce(t *testing.T, url, token string, size int64) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := fmt.Sprintf("POST /trial HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", size)
	if token != "" {
		head += TokenHeader + ": " + token + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return ""
		}
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Status
}

// TestAgentRefusesBeforeReading holds that an agent's refusals come
// before the body is read: a stranger's, one past the size bound, one
// while a trial runs and one while another bundle is being read, each
// answered to a request whose 80 MiB body never comes.
func TestAgentRefusesBeforeReading(t *testing.T) {
	url, _, _ := startAgent(t, &Agent{})
	const big = 80 << 20
	if got := announce(t, url, "", big); !strings.HasPrefix(got, "401") {
		t.Errorf("a stranger's 80 MiB: %q, want 401 before the body", got)
	}
	if got := announce(t, url, testToken, maxBundleBody+1); !strings.HasPrefix(got, "413") {
		t.Errorf("past the bound: %q, want 413 before the body", got)
	}
	// One bundle being read (its body never comes) holds off the next.
	if got := announce(t, url, testToken, big); got != "" {
		t.Fatalf("the controller's 80 MiB: %q, want the agent waiting for the body", got)
	}
	if got := announce(t, url, testToken, big); !strings.HasPrefix(got, "409") {
		t.Errorf("a second bundle while one is read: %q, want 409 before the body", got)
	}

	// While a trial runs, the next is refused unread.
	url2, _, _ := startAgent(t, &Agent{})
	s := agentTarget(t, "{mode: open, rates: [20], duration: 1m}")
	b, err := NewBundle(s, spec.Trial{Variant: "v", Level: record.Level{Rate: 20}, Rep: 1, Position: 1}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	bundle, _ := json.Marshal(b)
	if code, got := agentCall(t, "POST", url2+"/trial", string(bundle)); code != http.StatusAccepted {
		t.Fatalf("POST /trial: %d %q", code, got)
	}
	if got := announce(t, url2, testToken, big); !strings.HasPrefix(got, "409") {
		t.Errorf("a bundle while a trial runs: %q, want 409 before the body", got)
	}
}

// TestAgentNeedsToken: an agent serves only with a token long enough.
func TestAgentNeedsToken(t *testing.T) {
	for _, token := range []string{"", "short", strings.Repeat("a", 31), strings.Repeat("a", 31) + " b"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := (&Agent{Token: token}).Serve(t.Context(), ln); err == nil {
			t.Errorf("Serve with token %q = nil, want a refusal", token)
		}
		if _, err := ln.Accept(); err == nil {
			t.Errorf("token %q: the listener is still open", token)
		}
	}
}

// TestReadToken reads tokens from files, and says what is wrong with a
// file that holds none, never what it holds.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tok, err := NewToken()
	if err != nil || len(tok) != 64 {
		t.Fatalf("NewToken = %q, %v; want 64 hex digits", tok, err)
	}
	if other, _ := NewToken(); other == tok {
		t.Error("two tokens alike")
	}
	if got, err := ReadToken(write("ok", "\n "+tok+"\n")); err != nil || got != tok {
		t.Errorf("ReadToken = %q, %v; want the token trimmed", got, err)
	}
	for name, content := range map[string]string{
		"short":  "secret-db-password=hunter2",
		"spaced": strings.Repeat("x", 20) + " " + strings.Repeat("y", 20),
		"huge":   strings.Repeat("z", maxToken+1),
		"binary": strings.Repeat("\x01", 40),
	} {
		_, err := ReadToken(write(name, content))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "xxxxx") {
			t.Errorf("%s: the error shows the file's content: %v", name, err)
		}
	}
	if _, err := ReadToken(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing file: no error")
	}
}

// TestAgentReadsOnlyItsBundle holds an agent to the files its bundle
// carries: a spec naming a file of the agent's own machine, by an
// absolute path or one that climbs out of the bundle, is refused with the
// field and the path, never the file's content, and no load is sent.
func TestAgentReadsOnlyItsBundle(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	secret := filepath.Join(t.TempDir(), "multi-secret.txt")
	if err := os.WriteFile(secret, []byte("secret-db-password=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &Agent{}
	url, _, _ := startAgent(t, a)
	for _, tt := range []struct{ field, value, want string }{
		{"body_file", secret, "load.body_file: " + secret + " is an absolute path: an agent reads only the files its bundle carries"},
		{"targets", secret, "load.targets: " + secret + " is an absolute path"},
		{"cacert", secret, "load.cacert: " + secret + " is an absolute path"},
		{"body_file", "../../../../../../../.." + secret, "load.body_file: ../../../../../../../.." + secret + " leaves the bundle's folder"},
		{"scenario", "sc.yaml", "sc.yaml:3: steps[0].body_file: " + secret + " is an absolute path"},
	} {
		ld := fmt.Sprintf("{rates: [10], duration: 1s, method: POST, %s: %q}", tt.field, tt.value)
		if tt.field == "targets" || tt.field == "scenario" {
			ld = fmt.Sprintf("{rates: [10], duration: 1s, %s: %q}", tt.field, tt.value)
		}
		text := fmt.Sprintf("version: 1\nname: steal\nvariants: [{name: v, target: %q}]\nload: %s\n", srv.URL+"/", ld)
		files := []BundleFile{{Path: "spec.yaml", Data: []byte(text)}}
		if tt.field == "scenario" {
			files = append(files, BundleFile{Path: "sc.yaml", Data: []byte(fmt.Sprintf("steps:\n  - {name: a, url: %q, method: POST,\n     body_file: %q}\n", srv.URL+"/", secret))})
		}
		b := Bundle{Spec: "spec.yaml", Files: files, Trial: spec.Trial{Variant: "v", Level: record.Level{Rate: 10}, Rep: 1, Position: 1}}
		body, err := json.Marshal(&b)
		if err != nil {
			t.Fatal(err)
		}
		code, got := agentCall(t, "POST", url+"/trial", string(body))
		if code != http.StatusBadRequest || !strings.Contains(got, tt.want) || strings.Contains(got, "hunter2") {
			t.Errorf("%s %s: %d %q; want 400 with %q and nothing of the file", tt.field, tt.value, code, got, tt.want)
		}
	}
	if tr := a.current(); tr != nil {
		t.Errorf("trial %d started", tr.t.Position)
	}
	if n := hits.Load(); n > 0 {
		t.Errorf("the target saw %d requests", n)
	}
}
