package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

// startAgent serves a on 127.0.0.1 until stop or the test's end, and
// returns its URL and wait, which returns what Serve returned, waiting
// at most two minutes for it.
func startAgent(t *testing.T, a *Agent) (url string, stop func(), wait func() error) {
	t.Helper()
	if a.Token == "" {
		a.Token = testToken
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	var serveErr error
	go func() {
		serveErr = a.Serve(ctx, ln)
		close(served)
	}()
	wait = func() error {
		select {
		case <-served:
			return serveErr
		case <-time.After(2 * time.Minute):
			return errors.New("the agent still serves after two minutes")
		}
	}
	t.Cleanup(func() {
		cancel()
		_ = wait() // what it returned is the test's to check
	})
	return "http://" + ln.Addr().String(), cancel, wait
}

// testToken is the token of the agents tests start.
const testToken = "0123456789abcdef0123456789abcdef-test"

// agentCall makes a request to an agent, as its controller, and returns
// its status and body.
func agentCall(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	return agentCallAs(t, testToken, method, url, body)
}

// agentCallAs makes a request carrying token ("" carries none).
func agentCallAs(t *testing.T, token, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// agentStatus asks an agent how its trial goes.
func agentStatus(t *testing.T, url string) AgentStatus {
	t.Helper()
	code, body := agentCall(t, http.MethodGet, url+"/trial", "")
	var st AgentStatus
	if err := json.Unmarshal([]byte(body), &st); code != http.StatusOK || err != nil {
		t.Fatalf("GET /trial: %d %q (%v)", code, body, err)
	}
	return st
}

// awaitStatus polls an agent until ok holds of its status, for at most a
// minute.
func awaitStatus(t *testing.T, url string, what string, ok func(AgentStatus) bool) AgentStatus {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st := agentStatus(t, url)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after a minute: %+v", what, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// agentTarget returns a server on 127.0.0.1 that answers every request
// 200, and a spec of one variant loading it with load.
func agentTarget(t *testing.T, load string) *spec.Spec {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	return writeSpec(t, t.TempDir(), fmt.Sprintf("version: 1\nname: agent\nvariants: [{name: v, target: %q}]\nload: %s\n", srv.URL+"/", load))
}

// TestAgentAPI walks an agent's API through a trial stopped halfway, and
// each refusal it answers on the way.
func TestAgentAPI(t *testing.T) {
	s := agentTarget(t, "{mode: open, rates: [50], duration: 1m}")
	trial := spec.Trial{Variant: "v", Level: record.Level{Rate: 50}, Rep: 1, Position: 1}
	b, err := NewBundle(s, trial, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	nope := *b
	nope.Trial.Variant = "nope"
	nopeBody, _ := json.Marshal(&nope)
	url, _, wait := startAgent(t, &Agent{})

	for _, tt := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/healthz", "", 200, "ok\n"},
		{"GET", "/trial", "", 200, `"state":"idle"`},
		{"GET", "/result", "", 404, "no trial: post one to /trial\n"},
		{"POST", "/trial/stop", "", 409, "no trial to stop\n"},
		{"GET", "/exit", "", 405, ""},
		{"POST", "/trial", "{", 400, "reading bundle: "},
		{"POST", "/trial", string(nopeBody), 400, `bad bundle: trial 1: no variant called "nope"`},
		{"POST", "/trial", string(body), 202, `"state":"measuring"`},
		{"POST", "/trial", string(body), 409, "trial 1 (variant v) is running"},
		{"GET", "/result", "", 409, "trial 1 is measuring: its result comes once it is done"},
	} {
		code, got := agentCall(t, tt.method, url+tt.path, tt.body)
		if code != tt.code || !strings.Contains(got, tt.want) {
			t.Errorf("%s %s: %d %q, want %d and %q", tt.method, tt.path, code, got, tt.code, tt.want)
		}
	}
	st := awaitStatus(t, url, "request sent", func(st AgentStatus) bool { return st.Progress != nil && st.Progress.Sent > 0 })
	if st.State != AgentMeasuring || st.Progress.Phase != "measure" || st.Variant != "v" || st.Level != "50/s" {
		t.Errorf("status while measuring: %+v", st)
	}
	if code, got := agentCall(t, "POST", url+"/trial/stop", ""); code != 202 || !strings.Contains(got, `"stopping":true`) {
		t.Errorf("POST /trial/stop: %d %q, want 202 and stopping", code, got)
	}
	st = awaitStatus(t, url, "trial done", func(st AgentStatus) bool { return st.State == AgentDone })
	if st.Error != "" || st.ResultMedia != ResultMedia || st.PointsMedia != PointsMedia {
		t.Errorf("status once stopped: %+v, want no error and the media types of the result and the points", st)
	}

	warm, res, errText := agentResult(t, url)
	if warm != nil || res == nil || errText != "" {
		t.Fatalf("GET /result: warm-up %v, result %v, error %q; want only a result", warm != nil, res != nil, errText)
	}
	if !res.Interrupted || res.Sent == 0 || res.Requests == 0 || int64(len(res.Raw)) != min(10, res.Requests) {
		t.Errorf("stopped result: interrupted %v, %d sent, %d requests, %d raw; want interrupted, some requests, up to 10 raw",
			res.Interrupted, res.Sent, res.Requests, len(res.Raw))
	}
	if code, got := agentCall(t, "POST", url+"/exit", ""); code != 200 || got != "exiting\n" {
		t.Errorf("POST /exit: %d %q", code, got)
	}
	if err := wait(); err != nil {
		t.Errorf("Serve = %v after /exit, want nil", err)
	}
}

// agentResult fetches and decodes GET /result.
func agentResult(t *testing.T, url string) (warm, res *record.Result, errText string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/result", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(TokenHeader, testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	media, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != 200 || err != nil || media != "multipart/form-data" {
		t.Fatalf("GET /result: %s, %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return warm, res, errText
		}
		if err != nil {
			t.Fatal(err)
		}
		switch p.FormName() {
		case "warmup", "measure":
			if ct := p.Header.Get("Content-Type"); ct != ResultMedia {
				t.Errorf("part %s of type %q", p.FormName(), ct)
			}
			r, err := record.DecodeResult(p)
			if err != nil {
				t.Fatalf("part %s: %v", p.FormName(), err)
			}
			if p.FormName() == "warmup" {
				warm = r
			} else {
				res = r
			}
		case "error":
			b, _ := io.ReadAll(p)
			errText = string(b)
		default:
			t.Fatalf("unknown part %q", p.FormName())
		}
	}
}

// TestAgentEnds holds an agent to its bounds: it ends after its idle time
// without a request, even with a trial under way, after its lifetime
// however busy, and with its context.
func TestAgentEnds(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		_, _, wait := startAgent(t, &Agent{Idle: 100 * time.Millisecond})
		if err := wait(); !errors.Is(err, ErrAgentIdle) {
			t.Errorf("Serve = %v, want %v", err, ErrAgentIdle)
		}
	})
	t.Run("idle with a trial", func(t *testing.T) {
		s := agentTarget(t, "{mode: open, rates: [20], duration: 1m}")
		b, err := NewBundle(s, spec.Trial{Variant: "v", Level: record.Level{Rate: 20}, Rep: 1, Position: 1}, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(b)
		a := &Agent{Idle: 500 * time.Millisecond}
		url, _, wait := startAgent(t, a)
		if code, got := agentCall(t, "POST", url+"/trial", string(body)); code != 202 {
			t.Fatalf("POST /trial: %d %q", code, got)
		}
		if err := wait(); !errors.Is(err, ErrAgentIdle) {
			t.Errorf("Serve = %v, want %v", err, ErrAgentIdle)
		}
		if tr := a.current(); !tr.finished() || tr.res == nil || !tr.res.Interrupted {
			t.Errorf("the trial under way when the agent ended: finished %v, result %v; want it stopped, interrupted", tr.finished(), tr.res)
		}
	})
	t.Run("lifetime", func(t *testing.T) {
		url, _, wait := startAgent(t, &Agent{Idle: time.Hour, Lifetime: 300 * time.Millisecond})
		errc := make(chan error, 1)
		go func() { errc <- wait() }()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case <-deadline:
				t.Fatal("the agent outlived its 300ms lifetime by 30s")
			case err := <-errc:
				if !errors.Is(err, ErrAgentLifetime) {
					t.Errorf("Serve = %v, want %v", err, ErrAgentLifetime)
				}
				return
			case <-time.After(50 * time.Millisecond):
				// Keeps it from idling. The agent may have ended at its
				// lifetime since the last look: a refused call is then
				// expected, and errc says why it ended.
				req, _ := http.NewRequest(http.MethodGet, url+"/trial", nil)
				req.Header.Set(TokenHeader, testToken)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	})
	t.Run("context", func(t *testing.T) {
		_, stop, wait := startAgent(t, &Agent{})
		stop()
		if err := wait(); !errors.Is(err, context.Canceled) {
			t.Errorf("Serve = %v, want %v", err, context.Canceled)
		}
	})
}

// TestAgentStartAt holds an agent to a bundle's start_at: the measured
// load starts no earlier, and a trial stopped while it waits ends
// interrupted, with nothing measured.
func TestAgentStartAt(t *testing.T) {
	s := agentTarget(t, "{mode: open, rates: [100], requests: 5}")
	trial := spec.Trial{Variant: "v", Level: record.Level{Rate: 100}, Rep: 1, Position: 1}
	url, _, _ := startAgent(t, &Agent{})
	post := func(at time.Time) {
		t.Helper()
		b, err := NewBundle(s, trial, "", 5)
		if err != nil {
			t.Fatal(err)
		}
		b.StartAt = at
		body, _ := json.Marshal(b)
		if code, got := agentCall(t, "POST", url+"/trial", string(body)); code != 202 {
			t.Fatalf("POST /trial: %d %q", code, got)
		}
	}

	at := time.Now().Add(300 * time.Millisecond)
	post(at)
	awaitStatus(t, url, "trial done", func(st AgentStatus) bool { return st.State == AgentDone })
	_, res, errText := agentResult(t, url)
	if res == nil || errText != "" || res.Requests != 5 || res.Start.Before(at) {
		t.Fatalf("result %v, error %q; want 5 requests from %s on", res, errText, at.Format(time.RFC3339Nano))
	}

	post(time.Now().Add(time.Hour))
	awaitStatus(t, url, "trial waiting", func(st AgentStatus) bool { return st.State == AgentWaiting })
	if code, _ := agentCall(t, "POST", url+"/trial/stop", ""); code != 202 {
		t.Fatalf("POST /trial/stop: %d", code)
	}
	awaitStatus(t, url, "trial done", func(st AgentStatus) bool { return st.State == AgentDone })
	warm, res, errText := agentResult(t, url)
	if warm != nil || res != nil || errText != "interrupted" {
		t.Errorf("stopped while waiting: warm-up %v, result %v, error %q; want only the error interrupted", warm, res, errText)
	}
}

// writeSpec writes text as spec.yaml in dir and reads it.
func writeSpec(t *testing.T, dir, text string) *spec.Spec {
	t.Helper()
	path := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.ReadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
