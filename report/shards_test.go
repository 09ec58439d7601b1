package report

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/store"
)

// testShards are a sharded run's: one that sent 200 requests at 100/s,
// one 50 at 50/s (too few for a p99), one lost before it started.
func testShards(start time.Time) []store.Shard {
	few := rankResult(50, 0)
	few.Mode, few.Sent, few.LastSent = "open", 50, 49*20*time.Millisecond
	res := rankResult(200, 0)
	res.Mode, res.Sent, res.LastSent = "open", 200, 199*10*time.Millisecond
	return []store.Shard{
		{Index: 0, Name: "pid 10", Offset: 3 * time.Microsecond, OffsetBound: 20 * time.Microsecond, Start: start.Add(time.Millisecond), Result: res},
		{Index: 1, Name: "load-1", Node: "node-1", Offset: -time.Millisecond, OffsetBound: 50 * time.Microsecond, Start: start, Result: few},
		{Index: 2, Name: "load-2", Node: "node-0", Error: "OOMKilled"},
	}
}

// TestShardRows reads each shard's cells: where it ran, its percentiles
// (n/a from too few samples), its offset and its start after the
// earliest; a lost shard's reason in place of what it sent.
func TestShardRows(t *testing.T) {
	var got [][]string
	for _, row := range shardRows(testShards(time.Now())) {
		got = append(got, row.cells())
	}
	want := [][]string{
		{"0", "pid 10", "200", "100/s", "100.0ms", "198.0ms", "3.0µs ± 20.0µs", "+1.000ms"},
		{"1", "load-1 on node-1", "50", "50.00/s", "25.00ms", "n/a", "-1.000ms ± 50.0µs", "+0ns"},
		{"2", "load-2 on node-0", "lost: OOMKilled", "", "", "", "0ns ± 0ns", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	for i, row := range got {
		if len(row) != len(shardHead) {
			t.Errorf("row %d: %d cells under %d columns", i, len(row), len(shardHead))
		}
	}
}

// TestShardSpread sums up the shards: the spread of their starts over
// those that started, and the clock furthest off.
func TestShardSpread(t *testing.T) {
	s := spreadOf(shardRows(testShards(time.Now())))
	want := shardSpread{Started: 2, Starts: time.Millisecond, Offset: -time.Millisecond, Bound: 50 * time.Microsecond, Index: 1}
	if s != want {
		t.Errorf("spread %+v; want %+v", s, want)
	}
	if got := s.String(); got != "started within 1.000ms of each other; largest clock offset -1.000ms ± 50.0µs (shard 1)" {
		t.Errorf("String: %q", got)
	}
	lost := spreadOf(shardRows([]store.Shard{{Index: 0, Error: "killed"}}))
	if got := lost.String(); !strings.HasPrefix(got, "none started;") {
		t.Errorf("String of shards none of which started: %q", got)
	}
}
