package store

import (
	"context"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// TestShardsRoundTrip writes a sharded run and reads its shards back:
// each one's clock, start and result, without raw samples, exactly, and
// a lost one's error; a run of one generator has none.
func TestShardsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	exp := newExperiment(t, db, "sharded", "version: 1\n")
	start := time.Now()
	a, b := recorded(t, start, 400, 1), recorded(t, start.Add(300*time.Microsecond), 400, 2)
	in := info(Trial{Variant: "v", Level: record.Level{Rate: 100}, Rep: 1}, 0)
	in.Shards = []Shard{
		{Index: 0, Name: "pid 10", Offset: 20 * time.Microsecond, OffsetBound: 40 * time.Microsecond, Start: a.Start, Result: a},
		{Index: 1, Name: "load-1-x", Node: "node-1", Offset: -3 * time.Millisecond, OffsetBound: time.Millisecond, Start: b.Start, Result: b},
		{Index: 2, Name: "load-2-y", Node: "node-0", Error: "OOMKilled"},
	}
	id, err := db.WriteRun(ctx, exp.ID, in, a, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "v", Level: record.Level{Rate: 100}, Rep: 2}, 1), a, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Shards(ctx, id)
	if err != nil || len(got) != 3 {
		t.Fatalf("shards %+v, %v; want 3", got, err)
	}
	for i, s := range got {
		w := in.Shards[i]
		if s.Index != w.Index || s.Name != w.Name || s.Node != w.Node || s.Offset != w.Offset || s.OffsetBound != w.OffsetBound ||
			!s.Start.Equal(w.Start) || s.Error != w.Error || (s.Result == nil) != (w.Result == nil) {
			t.Errorf("shard %d: %+v; want %+v", i, s, w)
			continue
		}
		if w.Result == nil {
			continue
		}
		if s.Result.Raw != nil || s.Result.RawDropped != 0 {
			t.Errorf("shard %d: %d raw samples kept; the run's merged ones hold them", i, len(s.Result.Raw))
		}
		if s.Result.Requests != w.Result.Requests || s.Result.Latency.TotalCount() != w.Result.Latency.TotalCount() ||
			!s.Result.Latency.Equals(w.Result.Latency) || len(s.Result.Intervals) != len(w.Result.Intervals) {
			t.Errorf("shard %d: result %d requests, %d intervals; want %d, %d, the same latency histogram", i,
				s.Result.Requests, len(s.Result.Intervals), w.Result.Requests, len(w.Result.Intervals))
		}
	}
	if none, err := ro.Shards(ctx, other); err != nil || len(none) != 0 {
		t.Errorf("a run of one generator: shards %+v, %v; want none", none, err)
	}
}
