package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// resultCmp compares Results exactly: unexported fields too, and
// histograms by range and counts.
var resultCmp = cmp.Options{
	cmp.AllowUnexported(record.Result{}, record.Kept{}),
	cmp.Comparer(func(a, b *hdr.Histogram) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Equals(b) && a.Tag() == b.Tag()
	}),
}

// TestRemoteTrial runs a trial with a warm-up through an agent and a
// Client over 127.0.0.1: what the Client brings back is what the agent
// measured, exactly, and its progress ends done. (The runner's tests hold
// a scenario's trial run so to the figures it stores run here.)
func TestRemoteTrial(t *testing.T) {
	s := agentTarget(t, "{mode: closed, concurrency: [2], requests: 40}\nwarmup: {duration: 200ms}")
	const samples = int64(25)
	ctx := context.Background()

	trial := s.Plan(1)[0]
	b, err := NewBundle(s, trial, "", samples)
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{}
	url, _, wait := startAgent(t, a)
	var mu sync.Mutex
	var states []AgentState
	rm := &Client{Token: testToken, URL: url, Poll: 20 * time.Millisecond, Progress: func(st AgentStatus) {
		mu.Lock()
		states = append(states, st.State)
		mu.Unlock()
	}}
	run, err := rm.Run(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	warm, res := run.Warm, run.Result
	if run.Points != nil {
		t.Errorf("points %v of a spec that asks for no traces; want none", run.Points)
	}
	if err := wait(); err != nil {
		t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
	}
	tr := a.current()
	if diff := cmp.Diff(tr.res, res, resultCmp); diff != "" {
		t.Errorf("the result the Client brought back differs from the agent's (-agent +remote):\n%s", diff)
	}
	if diff := cmp.Diff(tr.warm, warm, resultCmp); diff != "" {
		t.Errorf("the warm-up the Client brought back differs from the agent's (-agent +remote):\n%s", diff)
	}
	mu.Lock()
	if len(states) == 0 || states[len(states)-1] != AgentDone {
		t.Errorf("progress seen: %v, want it to end done", states)
	}
	mu.Unlock()
}

// TestRemoteInterrupted holds a Client whose context ends to stop the
// agent's trial and bring back what it measured, marked interrupted, and
// the agent to exit.
func TestRemoteInterrupted(t *testing.T) {
	s := agentTarget(t, "{mode: open, rates: [50], duration: 1m}")
	b, err := NewBundle(s, spec.Trial{Variant: "v", Level: record.Level{Rate: 50}, Rep: 1, Position: 1}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	url, _, wait := startAgent(t, &Agent{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rm := &Client{Token: testToken, URL: url, Poll: 20 * time.Millisecond, Progress: func(st AgentStatus) {
		if st.Progress != nil && st.Progress.Sent > 0 {
			cancel() // as Ctrl-C would
		}
	}}
	run, err := rm.Run(ctx, b)
	warm, res := run.Warm, run.Result
	if err != nil || warm != nil || res == nil || run.Points != nil {
		t.Fatalf("Run = %+v, %v; want a result alone", run, err)
	}
	if !res.Interrupted || res.Sent == 0 || int64(len(res.Raw)) != min(100, res.Requests) {
		t.Errorf("result: interrupted %v, %d sent, %d raw of %d; want interrupted, some sent, all kept raw", res.Interrupted, res.Sent, len(res.Raw), res.Requests)
	}
	if err := wait(); err != nil {
		t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
	}
}

// TestRemoteErrors holds a Client's errors to saying what failed, where.
func TestRemoteErrors(t *testing.T) {
	ctx := context.Background()
	s := agentTarget(t, "{mode: open, rates: [20], duration: 1m}")
	trial := spec.Trial{Variant: "v", Level: record.Level{Rate: 20}, Rep: 1, Position: 1}
	b, err := NewBundle(s, trial, "", 0)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("not ready", func(t *testing.T) {
		url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
		_, err := (&Client{Token: testToken, URL: url, Ready: 300 * time.Millisecond}).Run(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "agent "+url+": not ready after 300ms: ") {
			t.Errorf("Run = %v", err)
		}
	})
	t.Run("bad bundle", func(t *testing.T) {
		url, _, wait := startAgent(t, &Agent{})
		bad := *b
		bad.Trial.Variant = "nope"
		_, err := (&Client{Token: testToken, URL: url}).Run(ctx, &bad)
		var ae *AgentError
		if !errors.As(err, &ae) || ae.Code != http.StatusBadRequest || ae.Request != "POST /trial" || !strings.Contains(ae.Msg, `no variant called "nope"`) {
			t.Errorf("Run = %v, want the agent's 400 naming the variant", err)
		}
		if err := wait(); err != nil {
			t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
		}
	})
	t.Run("lost", func(t *testing.T) {
		url, stop, _ := startAgent(t, &Agent{})
		var once sync.Once
		rm := &Client{Token: testToken, URL: url, Poll: 20 * time.Millisecond, Lost: 300 * time.Millisecond, Progress: func(st AgentStatus) {
			if st.State == AgentMeasuring {
				once.Do(stop) // the agent goes away mid-trial
			}
		}}
		_, err := rm.Run(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "agent "+url+": lost: no status for 300ms: ") {
			t.Errorf("Run = %v", err)
		}
	})
}
