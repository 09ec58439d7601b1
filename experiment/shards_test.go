package experiment

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// TestRunShards runs one open-loop trial on three agents together: each
// sends its third of the schedule, the merge holds them all, every
// shard's clock is within its bound on one machine, and the shards are
// told to exit once done.
func TestRunShards(t *testing.T) {
	s := agentTarget(t, "{mode: open, rates: [300], duration: 1s}")
	trial := Trial{Variant: "v", Level: record.Level{Rate: 300}, Rep: 1, Position: 1}
	b, err := NewBundle(s, trial, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var members []ShardMember
	var waits []func() error
	for range 3 {
		url, _, wait := startAgent(t, &Agent{})
		members = append(members, ShardMember{Remote: &Remote{Token: testToken, URL: url}, Name: url})
		waits = append(waits, wait)
	}
	run, err := RunShards(context.Background(), members, b, ShardOptions{})
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

// TestRunShardsLost stops one agent mid-trial: the trial ends within the
// bound with a ShardError naming it, the others' results unmerged.
func TestRunShardsLost(t *testing.T) {
	s := agentTarget(t, "{mode: open, rates: [50], duration: 1m}")
	trial := Trial{Variant: "v", Level: record.Level{Rate: 50}, Rep: 1, Position: 1}
	b, err := NewBundle(s, trial, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var members []ShardMember
	var stops []func()
	for range 2 {
		url, stop, _ := startAgent(t, &Agent{})
		members = append(members, ShardMember{Remote: &Remote{Token: testToken, URL: url, Poll: 100 * time.Millisecond}, Name: url})
		stops = append(stops, stop)
	}
	go func() {
		// Once the load runs, shard 1's agent goes away.
		for {
			st, err := members[1].Remote.status(context.Background())
			if err == nil && st.State == AgentMeasuring {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		stops[1]()
	}()
	start := time.Now()
	run, err := RunShards(context.Background(), members, b, ShardOptions{Lost: 2 * time.Second})
	took := time.Since(start)
	var se *ShardError
	if !errors.As(err, &se) || se.Index != 1 || run.Result != nil {
		t.Fatalf("RunShards = %v, merged %v; want shard 1 lost, nothing merged", err, run.Result != nil)
	}
	// Warm-up none, lead about a second, the loss seen within 2 s, the
	// other shard stopped: well under the minute the load would take.
	if took > 45*time.Second {
		t.Errorf("RunShards took %s after a shard's loss", took)
	}
	if run.Shards[0].Result == nil || !run.Shards[0].Result.Interrupted {
		t.Errorf("shard 0: %+v; want its result, interrupted", run.Shards[0])
	}
}

// TestShardFlags flags a shard whose clock may be off by more than the
// spec's bound, and names the shards behind a merged run that fell
// behind: one that sent short of its schedule, not one that kept up.
func TestShardFlags(t *testing.T) {
	kept := &record.Result{TargetRate: 50, Sent: 100}
	short := &record.Result{TargetRate: 50, Sent: 50, Unsent: 50}
	tr := &trialRun{r: &Runner{Spec: &Spec{Shards: &Shards{Count: 2, ClockSkew: time.Millisecond}, Validity: DefaultValidity()}},
		shards: &ShardRun{Shards: []ShardInfo{
			{Index: 0, Name: "pid 1", Offset: 10 * time.Microsecond, OffsetBound: 5 * time.Microsecond, Result: kept},
			{Index: 1, Name: "pid 2", Offset: 2 * time.Millisecond, OffsetBound: 5 * time.Microsecond, Result: short},
		}}}
	flags := tr.shardFlags([]store.Flag{{Name: FlagGeneratorSaturated, Reason: "sent 75% of the requests due"}})
	if len(flags) != 2 {
		t.Fatalf("flags %+v; want generator_saturated and clock_skew", flags)
	}
	if r := flags[0].Reason; !strings.HasSuffix(r, "; behind: shard 1 (pid 2)") {
		t.Errorf("generator_saturated: %q; want shard 1 named, alone", r)
	}
	if f := flags[1]; f.Name != FlagClockSkew || !strings.Contains(f.Reason, "shard 1 (pid 2)") || strings.Contains(f.Reason, "shard 0") {
		t.Errorf("clock_skew: %+v; want shard 1 alone", f)
	}
	if got := (&trialRun{}).shardFlags(nil); got != nil {
		t.Errorf("a trial of one generator: flags %+v", got)
	}
}
