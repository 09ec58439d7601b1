package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/shard"
	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// TestShardFlags flags a shard whose clock may be off by more than the
// spec's bound, and names the shards behind a merged run that fell
// behind: one that sent short of its schedule, not one that kept up.
func TestShardFlags(t *testing.T) {
	kept := &record.Result{TargetRate: 50, Sent: 100}
	short := &record.Result{TargetRate: 50, Sent: 50, Unsent: 50}
	tr := &trialRun{r: &Runner{Spec: &spec.Spec{Shards: &spec.Shards{Count: 2, ClockSkew: time.Millisecond}, Validity: spec.DefaultValidity()}},
		shards: &shard.Result{Shards: []shard.Info{
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
	if f := flags[1]; f.Name != shard.FlagClockSkew || !strings.Contains(f.Reason, "shard 1 (pid 2)") || strings.Contains(f.Reason, "shard 0") {
		t.Errorf("clock_skew: %+v; want shard 1 alone", f)
	}
	if got := (&trialRun{}).shardFlags(nil); got != nil {
		t.Errorf("a trial of one generator: flags %+v", got)
	}
}
