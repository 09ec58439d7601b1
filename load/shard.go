package load

import (
	"cmp"
	"fmt"
	"time"
)

// Shard is one of Count parts of a load that Count generators (processes
// or pods), started together, send so that their results merge into the
// load asked. The zero value is the whole load, unsharded.
//
// Item i of the whole load, counting from 0, goes to the shard of Index
// i mod Count, as that shard's item i / Count: request i of an open
// loop's schedule, worker i of a closed loop or a ramp, iteration i of a
// request count. A shard's sources see the item's index in the whole load
// (Vars.Seq and Vars.Worker), so that targets taken round robin, users
// taken in turn and names built from the indices are those of the
// unsharded load. See Config.Shard for how each part of a load splits.
type Shard struct {
	Index int // from 0 to Count-1
	Count int // 0 (with Index 0) means unsharded
}

// Validate reports whether s is a shard: the zero value, or an Index from
// 0 to Count-1 of a Count of at least 1.
func (s Shard) Validate() error {
	switch {
	case s == Shard{}:
		return nil
	case s.Count < 1:
		return fmt.Errorf("shard %d of %d: want a count of at least 1", s.Index, s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard %d of %d: want an index from 0 to %d", s.Index, s.Count, s.Count-1)
	}
	return nil
}

// Share returns how many of n items dealt round robin, item i to shard
// i mod Count, fall to s: n/Count, and one more for the first n mod Count
// shards. The shares of every shard sum to n. Unsharded, it is n.
func (s Shard) Share(n int64) int64 {
	if s.Count <= 1 {
		return n
	}
	c := int64(s.Count)
	q := n / c
	if int64(s.Index) < n%c {
		q++
	}
	return q
}

// whole returns the index in the whole load of s's item j.
func (s Shard) whole(j int64) int64 {
	if s.Count <= 1 {
		return j
	}
	return j*int64(s.Count) + int64(s.Index)
}

// capPart returns s's part of a cap on connections or requests in flight:
// its Share, at least 1; 0 (no cap, or the default) stays 0.
func (s Shard) capPart(n int) int {
	if n <= 0 {
		return n
	}
	return max(int(s.Share(int64(n))), 1)
}

// Check reports whether a load of model m, stopped after count iterations
// (0: no count), can be split over s.Count shards: s is valid, m is not
// Sequential, and every shard gets at least one worker of a closed loop
// or a ramp and at least one of the iterations counted.
func (s Shard) Check(m Model, count int64) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Count <= 1 {
		return nil
	}
	var workers int
	switch m := m.(type) {
	case Sequential:
		return fmt.Errorf("shard %d of %d: a sequential load sends one request at a time and cannot be split", s.Index, s.Count)
	case Closed:
		workers = m.Workers
	case Ramp:
		workers = m.Workers
	}
	if workers > 0 && workers < s.Count {
		return fmt.Errorf("shard %d of %d: %d workers cannot be split over %d shards: want at least one per shard", s.Index, s.Count, workers, s.Count)
	}
	if count > 0 && count < int64(s.Count) {
		return fmt.Errorf("shard %d of %d: %d requests cannot be split over %d shards: want at least one per shard", s.Index, s.Count, count, s.Count)
	}
	return nil
}

// split returns cfg as its shard sends it: an open loop's schedule
// Sharded and its cap split, the count and the caps on connections and the
// pool split (see Config.Shard). A closed loop's and a ramp's workers are
// split as they start (runner.ramp). cfg.Shard stays, for the indices the
// source sees.
func split(cfg Config) (Config, error) {
	s := cfg.Shard
	if err := s.Check(cfg.Model, cfg.Count); err != nil {
		return cfg, err
	}
	if s.Count <= 1 {
		return cfg, nil
	}
	cfg.Model, _ = s.model(cfg.Model)
	cfg.Count = s.Share(cfg.Count)
	cfg.Pool = s.capPart(cfg.Pool)
	cfg.Transport.Connections = s.capPart(cfg.Transport.Connections)
	return cfg, nil
}

// model returns the shard's part of m: an open loop's requests of the
// schedule, with its share of the cap on requests in flight. The closed
// loop and the ramp are dealt as they run (see runner.ramp).
func (s Shard) model(m Model) (Model, error) {
	if err := s.Check(m, 0); err != nil {
		return nil, err
	}
	if o, ok := m.(Open); ok && s.Count > 1 {
		// The default cap is dealt too, so that the shards together
		// hold as many requests in flight as one generator would.
		return Open{Pacer: Sharded{Pacer: o.Pacer, Index: s.Index, Count: s.Count}, MaxInFlight: s.capPart(cmp.Or(o.MaxInFlight, DefaultMaxInFlight))}, nil
	}
	return m, nil
}

// Sharded is one shard's part of an open-loop schedule: its request j is
// request j×Count+Index of Pacer, so that the shards' schedules together
// are Pacer's exactly. Each shard reads the whole of Pacer and keeps its
// every Count-th request: Poisson arrivals of one Seed are the same
// sequence in every shard. Like Pacer's, its Due is called with j
// counting up.
type Sharded struct {
	Pacer Pacer
	Index int // from 0 to Count-1
	Count int // 0 means the whole schedule
}

var _ Pacer = Sharded{}

// Due implements Pacer.
func (s Sharded) Due(j int64) (time.Duration, bool) {
	return s.Pacer.Due(Shard{Index: s.Index, Count: s.Count}.whole(j))
}

// Mean implements Pacer: Pacer's mean over Count.
func (s Sharded) Mean() float64 { return s.Pacer.Mean() / float64(max(s.Count, 1)) }
