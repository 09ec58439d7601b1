package report

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// A shardRow is one shard of a sharded run as every report shows it: the
// HTML and text tables print its cells, the JSON forms its numbers.
type shardRow struct {
	store.Shard
	// Where is what ran it, "on" its node when it has one.
	Where string
	// Since is its start after the earliest shard's; Started is false
	// when it has no start (it was lost first).
	Since   time.Duration
	Started bool
	// P50 and P99 are its latency's; OK is false when it has too few
	// samples for one, or no result.
	P50, P99     time.Duration
	P50OK, P99OK bool
}

// shardRows returns the rows of a run's shards, in their order.
func shardRows(shards []store.Shard) []shardRow {
	first, _ := shardStarts(shards)
	out := make([]shardRow, len(shards))
	for i, sh := range shards {
		row := shardRow{Shard: sh, Where: sh.Name}
		if sh.Node != "" {
			row.Where += " on " + sh.Node
		}
		if !sh.Start.IsZero() {
			row.Since, row.Started = sh.Start.Sub(first), true
		}
		if res := sh.Result; res != nil && res.Latency != nil {
			row.P50, row.P50OK = record.Quantile(res.Latency, 0.50)
			row.P99, row.P99OK = record.Quantile(res.Latency, 0.99)
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
	out := []string{fmt.Sprint(s.Index), s.Where}
	if res := s.Result; res == nil {
		out = append(out, "lost: "+s.Error, "", "", "")
	} else {
		out = append(out, fmt.Sprint(res.Sent), units.Rate(res.SendRate()), durationOrNA(s.P50, s.P50OK), durationOrNA(s.P99, s.P99OK))
	}
	start := ""
	if s.Started {
		start = "+" + units.Duration(s.Since)
	}
	return append(out, units.Duration(s.Offset)+" ± "+units.Duration(s.OffsetBound), start)
}

// durationOrNA formats d, or n/a when it is not there.
func durationOrNA(d time.Duration, ok bool) string {
	if !ok {
		return units.NA
	}
	return units.Duration(d)
}

// shardStarts returns the earliest start of shards and how long after it
// the latest one started; zeros when none did.
func shardStarts(shards []store.Shard) (first time.Time, spread time.Duration) {
	var last time.Time
	for _, sh := range shards {
		if sh.Start.IsZero() {
			continue
		}
		if first.IsZero() || sh.Start.Before(first) {
			first = sh.Start
		}
		if sh.Start.After(last) {
			last = sh.Start
		}
	}
	if first.IsZero() {
		return first, 0
	}
	return first, last.Sub(first)
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

// spreadOf sums up shards, which must not be empty.
func spreadOf(shards []store.Shard) shardSpread {
	var s shardSpread
	_, s.Starts = shardStarts(shards)
	for i, sh := range shards {
		if !sh.Start.IsZero() {
			s.Started++
		}
		if i == 0 || sh.Offset.Abs() > s.Offset.Abs() {
			s.Offset, s.Bound, s.Index = sh.Offset, sh.OffsetBound, sh.Index
		}
	}
	return s
}

// String says it in a clause: "started within 1.000ms of each other;
// largest clock offset −1.000ms ± 50.0µs (shard 1)".
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
