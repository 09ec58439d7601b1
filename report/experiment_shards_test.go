package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// shardedExperiment writes an experiment of two variants at 100/s, three
// runs each, to a new database: web's runs were sent by testShards' three
// shards (one lost), bare's by one generator. It returns the report,
// with the shards read, and the id of web's median run by p50.
func shardedExperiment(t *testing.T) (*Experiment, int64) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e, err := db.CreateExperiment(ctx, store.Experiment{Name: "sharded", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var median int64
	for rep := 1; rep <= 3; rep++ {
		for _, v := range []string{"web", "bare"} {
			info := store.RunInfo{Trial: store.Trial{Variant: v, Level: record.Level{Rate: 100, Concurrency: 64}, Rep: rep},
				Position: 2 * (rep - 1), Status: store.Done, StartedAt: time.Now(), EndedAt: time.Now()}
			// Rep 1 is the slowest, rep 3 the fastest: rep 2 is the median.
			res := fixtureRun("plain", 100, 1, time.Duration(3-rep)*100*time.Microsecond)
			if v == "web" {
				info.Shards = testShards(res.Start)
			}
			id, err := db.WriteRun(ctx, e.ID, info, res, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v == "web" && rep == 2 {
				median = id
			}
		}
	}
	db.Close()
	rd, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	exp, err := loadDesigned(ctx, rd, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	r := newFixture(t, exp, ExperimentOptions{})
	if err := r.LoadShards(ctx, rd); err != nil {
		t.Fatal(err)
	}
	return r, median
}

// TestShardText shows the shards of web's representative run, one row
// each, a lost one with its reason and a p99 from too few samples as
// n/a, and sums them up; bare's runs, and a report whose shards were not
// read, show none.
func TestShardText(t *testing.T) {
	r, median := shardedExperiment(t)
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	_, table, ok := strings.Cut(text, "\nShards of each variant's representative run at 100/s")
	if !ok {
		t.Fatalf("no shards table:\n%s", text)
	}
	var rows, sums []string
	for line := range strings.Lines(table) {
		switch {
		case strings.HasPrefix(line, "web "):
			rows = append(rows, line)
		case strings.HasPrefix(line, "  web run "):
			sums = append(sums, line)
		case strings.HasPrefix(line, "bare"):
			t.Errorf("a row for a run one generator sent: %s", line)
		}
	}
	if len(rows) != 3 || len(sums) != 1 {
		t.Fatalf("%d rows and %d summing lines; want 3 shards of one run, and its line:\n%s", len(rows), len(sums), table)
	}
	for i, want := range [][]string{
		{"pid 10", " 200 ", " 100/s ", "100.0ms", "198.0ms", "3.0µs ± 20.0µs", "+1.000ms"},
		{"load-1 on node-1", " 50 ", "50.00/s", "25.00ms", " n/a ", "-1.000ms ± 50.0µs", "+0ns"},
		{"load-2 on node-0", "lost: OOMKilled", "0ns ± 0ns", " -\n"},
	} {
		if f := strings.Fields(rows[i]); f[1] != fmt.Sprint(median) {
			t.Errorf("row %d is of run %s; want the median run %d", i, f[1], median)
		}
		checkText(t, rows[i], want, nil)
	}
	if !strings.HasSuffix(rows[2], " -\n") {
		t.Errorf("the lost shard's start: %s; want a dash", rows[2])
	}
	checkText(t, sums[0], []string{"3 shards: started within 1.000ms of each other; largest clock offset -1.000ms ± 50.0µs (shard 1)"}, nil)

	r.shards = nil
	b.Reset()
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), nil, []string{"Shards"})
}

// TestShardJSON lists every sharded run with its shards and the spread
// of their starts: null what a lost shard did not measure, and a p99
// from too few samples; no key at all when no run was sharded.
func TestShardJSON(t *testing.T) {
	r, _ := shardedExperiment(t)
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		ShardedRuns []struct {
			RunID              int64    `json:"run_id"`
			Variant            string   `json:"variant"`
			Rate               float64  `json:"rate"`
			Rep                int      `json:"rep"`
			StartSpreadSeconds *float64 `json:"start_spread_seconds"`
			Shards             []map[string]any
		} `json:"sharded_runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.ShardedRuns) != 3 {
		t.Fatalf("%d sharded runs; want web's 3:\n%s", len(got.ShardedRuns), b.String())
	}
	for i, run := range got.ShardedRuns {
		if run.Variant != "web" || run.Rate != 100 || run.Rep != i+1 || len(run.Shards) != 3 {
			t.Errorf("run %d: %s at %g/s rep %d, %d shards; want web at 100/s rep %d, 3 shards", run.RunID, run.Variant, run.Rate, run.Rep, len(run.Shards), i+1)
			continue
		}
		if s := run.StartSpreadSeconds; s == nil || *s != 0.001 {
			t.Errorf("run %d: start spread %v; want 0.001 s", run.RunID, s)
		}
		ok, few, lost := run.Shards[0], run.Shards[1], run.Shards[2]
		for _, c := range []struct {
			shard map[string]any
			key   string
			want  any // a float64 is compared within 0.1%, as a percentile is a bucket's top
		}{
			{ok, "name", "pid 10"}, {ok, "node", ""}, {ok, "lost", false}, {ok, "error", ""}, {ok, "sent", 200.0},
			{ok, "achieved_rate", 100.0}, {ok, "p50", 0.1}, {ok, "p99", 0.198},
			{ok, "offset_seconds", 3e-6}, {ok, "offset_bound_seconds", 2e-5}, {ok, "start_seconds", 0.001},
			{few, "node", "node-1"}, {few, "sent", 50.0}, {few, "achieved_rate", 50.0}, {few, "p50", 0.025}, {few, "p99", nil},
			{few, "offset_seconds", -0.001}, {few, "start_seconds", 0.0},
			{lost, "lost", true}, {lost, "error", "OOMKilled"}, {lost, "sent", nil}, {lost, "achieved_rate", nil},
			{lost, "p50", nil}, {lost, "p99", nil}, {lost, "start_seconds", nil},
		} {
			got := c.shard[c.key]
			if l, ok := c.shard["latency_seconds"].(map[string]any); ok && (c.key == "p50" || c.key == "p99") {
				got = l[c.key]
			}
			g, gok := got.(float64)
			w, wok := c.want.(float64)
			if gok && wok && math.Abs(g-w) <= 1e-3*math.Abs(w) || got == c.want {
				continue
			}
			t.Errorf("run %d, shard %v: %s %v; want %v", run.RunID, c.shard["index"], c.key, got, c.want)
		}
	}

	r.shards = nil
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), nil, []string{"sharded_runs"})
}
