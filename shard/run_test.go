package shard

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

// TestRun runs one open-loop trial on three agents together: each
// sends its third of the schedule, the merge holds them all, every
// shard's clock is within its bound on one machine, and the shards are
// told to exit once done.
func TestRun(t *testing.T) {
	s := remotetest.Target(t, "{mode: open, rates: [300], duration: 1s}")
	trial := spec.Trial{Variant: "v", Level: record.Level{Rate: 300}, Rep: 1, Position: 1}
	b, err := remote.NewBundle(s, trial, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var members []Member
	var waits []func() error
	for range 3 {
		url, _, wait := remotetest.StartAgent(t, &remote.Agent{})
		members = append(members, Member{Remote: &remote.Client{Token: remotetest.Token, URL: url}, Name: url})
		waits = append(waits, wait)
	}
	run, err := Run(context.Background(), members, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Every request of the schedule is sent, or counted unsent by a
	// generator a busy machine held back at the end.
	m := run.Result
	if m == nil || m.Sent+m.Unsent != 300 || m.Requests != m.Sent || m.Latency.TotalCount() != m.Requests || int64(len(m.Raw)) != m.Requests {
		t.Fatalf("merged: %v; want the schedule's 300 requests, each sent one completed and kept raw", m != nil)
	}
	for i, sh := range run.Shards {
		if sh.Index != i || sh.Result == nil || sh.Result.Sent+sh.Result.Unsent != 100 || sh.Err != nil {
			t.Errorf("shard %d (%s): %v, error %v; want its 100 requests", i, sh.Name, sh.Result != nil, sh.Err)
			continue
		}
		if sh.Offset < -sh.OffsetBound || sh.Offset > sh.OffsetBound {
			t.Errorf("shard %d: offset %s beyond its bound %s on one machine", i, sh.Offset, sh.OffsetBound)
		}
		if sh.Start.Before(run.At.Add(-sh.OffsetBound)) {
			t.Errorf("shard %d started at %s, before the common start %s", i, sh.Start, run.At)
		}
	}
	if run.Spread < 0 || len(run.Skewed(time.Hour)) != 0 {
		t.Errorf("spread %s, skewed %v", run.Spread, run.Skewed(time.Hour))
	}
	for i, wait := range waits {
		if err := wait(); err != nil {
			t.Errorf("agent %d: Serve = %v; want it told to exit, and a nil error", i, err)
		}
	}
}

// TestRunLost stops one agent mid-trial: the trial ends within the
// bound with a Error naming it, the others' results unmerged.
func TestRunLost(t *testing.T) {
	s := remotetest.Target(t, "{mode: open, rates: [50], duration: 1m}")
	trial := spec.Trial{Variant: "v", Level: record.Level{Rate: 50}, Rep: 1, Position: 1}
	b, err := remote.NewBundle(s, trial, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var members []Member
	var stops []func()
	for range 2 {
		url, stop, _ := remotetest.StartAgent(t, &remote.Agent{})
		members = append(members, Member{Remote: &remote.Client{Token: remotetest.Token, URL: url, Poll: 100 * time.Millisecond}, Name: url})
		stops = append(stops, stop)
	}
	go func() {
		// Once the load runs, shard 1's agent goes away.
		for {
			st, err := members[1].Remote.Status(context.Background())
			if err == nil && st.State == remote.AgentMeasuring {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		stops[1]()
	}()
	start := time.Now()
	run, err := Run(context.Background(), members, b, Options{Lost: 2 * time.Second})
	took := time.Since(start)
	var se *Error
	if !errors.As(err, &se) || se.Index != 1 || run.Result != nil {
		t.Fatalf("Run = %v, merged %v; want shard 1 lost, nothing merged", err, run.Result != nil)
	}
	// Warm-up none, lead about a second, the loss seen within 2 s, the
	// other shard stopped: well under the minute the load would take.
	if took > 45*time.Second {
		t.Errorf("Run took %s after a shard's loss", took)
	}
	if run.Shards[0].Result == nil || !run.Shards[0].Result.Interrupted {
		t.Errorf("shard 0: %+v; want its result, interrupted", run.Shards[0])
	}
}
