package report

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// TestShardSection lists every shard of a sharded run, a lost one with
// its reason, and leaves the section out when no run was sharded.
func TestShardSection(t *testing.T) {
	start := time.Now()
	res := rankResult(200, 0)
	run := &analysis.RunDetail{}
	run.ID, run.Variant = 7, "web"
	run.Shards = []store.Shard{
		{Index: 0, Name: "pid 10", Offset: 3 * time.Microsecond, OffsetBound: 20 * time.Microsecond, Start: start.Add(time.Millisecond), Result: res},
		{Index: 1, Name: "load-1", Node: "node-1", Offset: -time.Millisecond, OffsetBound: 50 * time.Microsecond, Start: start, Result: res},
		{Index: 2, Name: "load-2", Node: "node-0", Error: "OOMKilled"},
	}
	s, ok := (&Experiment{}).shardSection(nil, []*analysis.RunDetail{run})
	if !ok || len(s.Tables) != 1 || len(s.Tables[0].Rows) != 3 {
		t.Fatalf("section %+v, %t; want a table of 3 shards", s, ok)
	}
	text := func(row []htmlCell) string {
		var b []string
		for _, c := range row {
			b = append(b, c.Text)
		}
		return strings.Join(b, " | ")
	}
	rows := s.Tables[0].Rows
	for i, want := range []string{"pid 10", "load-1 on node-1", "lost: OOMKilled"} {
		if !strings.Contains(text(rows[i]), want) {
			t.Errorf("row %d: %s; want %q", i, text(rows[i]), want)
		}
	}
	if got := text(rows[0]); !strings.HasSuffix(got, "+1.000ms") || !strings.HasSuffix(text(rows[1]), "+0ns") {
		t.Errorf("starts: %s / %s; want shard 0 a millisecond after shard 1", got, text(rows[1]))
	}
	if _, ok := (&Experiment{}).shardSection(nil, []*analysis.RunDetail{{}}); ok {
		t.Error("a section for a run of one generator")
	}
}
