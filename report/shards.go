package report

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// A shardRow is one shard of a sharded run as every report shows it: the
// HTML and text tables print its cells, the JSON forms its numbers. It
// keeps none of the shard's histograms, so that the rows of many runs
// stay small.
type shardRow struct {
	Index         int
	Name, Node    string
	Offset, Bound time.Duration
	// Lost is true when it has no result, Error why.
	Lost  bool
	Error string
	// Sent and Achieved are what it sent, and at what rate
	// (record.Result.SendRate).
	Sent     int64
	Achieved float64
	// P50 and P99 are its latency's; OK is false when it has too few
	// samples for one, or no result.
	P50, P99     time.Duration
	P50OK, P99OK bool
	// Since is its start after the earliest shard's; Started is false
	// when it has no start (it was lost first).
	Since   time.Duration
	Started bool
}

// shardRows returns the rows of a run's shards, in their order.
func shardRows(shards []store.Shard) []shardRow {
	first := firstStart(shards)
	out := make([]shardRow, len(shards))
	for i, sh := range shards {
		row := shardRow{Index: sh.Index, Name: sh.Name, Node: sh.Node, Offset: sh.Offset,
			Bound: sh.OffsetBound, Lost: sh.Result == nil, Error: sh.Error}
		if !sh.Start.IsZero() {
			row.Since, row.Started = sh.Start.Sub(first), true
		}
		if res := sh.Result; res != nil {
			row.Sent, row.Achieved = res.Sent, res.SendRate()
			if res.Latency != nil {
				row.P50, row.P50OK = record.Quantile(res.Latency, 0.50)
				row.P99, row.P99OK = record.Quantile(res.Latency, 0.99)
			}
		}
		out[i] = row
	}
	return out
}

// shardHead names the columns of shardRow.cells.
var shardHead = []string{"shard", "runs on", "sent", "achieved", "p50", "p99", "offset", "start"}

// cells are the row as text, under shardHead: a lost shard reads "lost:"
// and why in place of what it sent, its achieved rate and percentiles
// empty; a percentile from too few samples reads n/a, as every
// percentile of the reports.
func (s shardRow) cells() []string {
	where := s.Name
	if s.Node != "" {
		where += " on " + s.Node
	}
	out := []string{fmt.Sprint(s.Index), where}
	if s.Lost {
		out = append(out, "lost: "+s.Error, "", "", "")
	} else {
		out = append(out, fmt.Sprint(s.Sent), units.Rate(s.Achieved), durationOrNA(s.P50, s.P50OK), durationOrNA(s.P99, s.P99OK))
	}
	start := ""
	if s.Started {
		start = "+" + units.Duration(s.Since)
	}
	return append(out, units.Duration(s.Offset)+" ± "+units.Duration(s.Bound), start)
}

// textCells are cells for a terminal, escaped, a dash where a cell is
// empty.
func (s shardRow) textCells() []string {
	out := s.cells()
	for i, c := range out {
		out[i] = textsafe.Escape(orDash(c))
	}
	return out
}

// durationOrNA formats d, or n/a when it is not there.
func durationOrNA(d time.Duration, ok bool) string {
	if !ok {
		return units.NA
	}
	return units.Duration(d)
}

// firstStart returns the earliest start of shards; zero when none
// started.
func firstStart(shards []store.Shard) time.Time {
	var first time.Time
	for _, sh := range shards {
		if !sh.Start.IsZero() && (first.IsZero() || sh.Start.Before(first)) {
			first = sh.Start
		}
	}
	return first
}

// A shardSpread sums up how together a run's shards were: how far apart
// they started, and the clock furthest off the coordinator's.
type shardSpread struct {
	Started int           // shards with a start
	Starts  time.Duration // the latest start less the earliest
	// Offset is the largest in size of the shards' clock offsets, Bound
	// its bound and Index its shard's.
	Offset, Bound time.Duration
	Index         int
}

// spreadOf sums up the rows of a run's shards, which must not be empty.
func spreadOf(rows []shardRow) shardSpread {
	var s shardSpread
	for i, row := range rows {
		if row.Started {
			s.Started++
			s.Starts = max(s.Starts, row.Since)
		}
		if i == 0 || row.Offset.Abs() > s.Offset.Abs() {
			s.Offset, s.Bound, s.Index = row.Offset, row.Bound, row.Index
		}
	}
	return s
}

// String says it in a clause: "started within 1.000ms of each other;
// largest clock offset -1.000ms ± 50.0µs (shard 1)".
func (s shardSpread) String() string {
	var start string
	switch s.Started {
	case 0:
		start = "none started"
	case 1:
		start = "one started"
	default:
		start = "started within " + units.Duration(s.Starts) + " of each other"
	}
	return fmt.Sprintf("%s; largest clock offset %s ± %s (shard %d)", start, units.Duration(s.Offset), units.Duration(s.Bound), s.Index)
}

// ShardJSON is one shard of a sharded run, in latlab report's JSON and
// latlab attack's. Times are in seconds; what a lost shard did not
// measure is null.
type ShardJSON struct {
	Index              int     `json:"index"`
	Name               string  `json:"name"` // what ran it: a process, a pod
	Node               string  `json:"node"` // where: a node's name; "" for the coordinator's machine
	OffsetSeconds      float64 `json:"offset_seconds"`
	OffsetBoundSeconds float64 `json:"offset_bound_seconds"` // the offset is within ± this
	// StartSeconds is when its measured load began, after the earliest
	// shard's, on the coordinator's clock; null without a start.
	StartSeconds *float64 `json:"start_seconds"`
	Lost         bool     `json:"lost"`  // it has no result
	Error        string   `json:"error"` // why it was lost; "" otherwise
	Sent         *int64   `json:"sent"`
	AchievedRate *float64 `json:"achieved_rate"` // sends per second
	// Latency holds its p50 and p99 from each request's intended send;
	// each is null with too few samples for it.
	Latency ShardLatencyJSON `json:"latency_seconds"`
}

// ShardLatencyJSON is a shard's p50 and p99, under record.Summary's names.
type ShardLatencyJSON struct {
	P50 *float64 `json:"p50"`
	P99 *float64 `json:"p99"`
}

// shardsJSON returns rows as ShardJSON, and the spread of their starts
// in seconds: null when none started.
func shardsJSON(rows []shardRow) ([]ShardJSON, *float64) {
	out := make([]ShardJSON, len(rows))
	for i, row := range rows {
		sj := ShardJSON{Index: row.Index, Name: row.Name, Node: row.Node, OffsetSeconds: row.Offset.Seconds(),
			OffsetBoundSeconds: row.Bound.Seconds(), Lost: row.Lost, Error: row.Error}
		if row.Started {
			sj.StartSeconds = num(row.Since.Seconds())
		}
		if !row.Lost {
			sent := row.Sent
			sj.Sent, sj.AchievedRate = &sent, num(row.Achieved)
		}
		if row.P50OK {
			sj.Latency.P50 = num(row.P50.Seconds())
		}
		if row.P99OK {
			sj.Latency.P99 = num(row.P99.Seconds())
		}
		out[i] = sj
	}
	if s := spreadOf(rows); s.Started > 0 {
		return out, num(s.Starts.Seconds())
	}
	return out, nil
}
