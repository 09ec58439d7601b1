package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestAttackShards writes a line per shard after the spread of their
// starts and the clock furthest off, and nothing for an attack one
// generator sent.
func TestAttackShards(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAttackShards(&b, testShards(time.Now())); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 6 || lines[0] != "" {
		t.Fatalf("%d lines; want a blank one, the spread, the head and 3 shards:\n%s", len(lines), b.String())
	}
	if want := "Shards     3, started within 1.000ms of each other; largest clock offset -1.000ms ± 50.0µs (shard 1)"; lines[1] != want {
		t.Errorf("spread %q; want %q", lines[1], want)
	}
	for i, want := range [][]string{
		{"shard", "runs on", "sent", "achieved", "p50", "p99", "offset", "start"},
		{"  0 ", "pid 10", " 200 ", " 100/s ", "100.0ms", "198.0ms", "3.0µs ± 20.0µs", "+1.000ms"},
		{"  1 ", "load-1 on node-1", " 50 ", "50.00/s", "25.00ms", " n/a ", "-1.000ms ± 50.0µs", "+0ns"},
		{"  2 ", "load-2 on node-0", "lost: OOMKilled", "0ns ± 0ns"},
	} {
		checkText(t, lines[i+2], want, nil)
	}
	b.Reset()
	if err := WriteAttackShards(&b, nil); err != nil || b.Len() > 0 {
		t.Errorf("without shards: %q, %v; want nothing", b.String(), err)
	}
}

// TestAttackShardsJSON adds the shards and the spread of their starts to
// the attack's JSON.
func TestAttackShardsJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAttackJSON(&b, rankResult(250, 0), nil, testShards(time.Now())); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Requests int64
		Shards   []ShardJSON
		Spread   *float64 `json:"shard_start_spread_seconds"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Requests != 250 || len(got.Shards) != 3 || got.Spread == nil || *got.Spread != 0.001 {
		t.Fatalf("requests %d, %d shards, spread %v; want 250, 3, 0.001 s:\n%s", got.Requests, len(got.Shards), got.Spread, b.String())
	}
	if s := got.Shards[1]; s.Index != 1 || s.Node != "node-1" || *s.Sent != 50 || s.Latency.P50 == nil || s.Latency.P99 != nil {
		t.Errorf("shard 1: %+v; want 50 sent, a p50 and no p99", s)
	}
	if s := got.Shards[2]; !s.Lost || s.Error != "OOMKilled" || s.Sent != nil || s.StartSeconds != nil {
		t.Errorf("shard 2: %+v; want lost, with nulls", s)
	}
}
