package shard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// Defaults of a sharded trial's bounds.
const (
	DefaultLost   = 10 * time.Second
	DefaultClocks = 8
)

// FlagShardLost and FlagClockSkew flag a sharded trial: a shard died, was
// evicted or never started, and the trial ended without merging; a
// shard's clock may be off from the coordinator's by more than the bound,
// so the shards did not start together as close as promised.
const (
	FlagShardLost = "shard_lost"
	FlagClockSkew = "clock_skew"
)

// A Member is one shard of a trial: an agent, and how the
// coordinator learns that what runs it is gone.
type Member struct {
	Remote *remote.Client
	Name   string // what runs it: "pid 4242", a pod's name
	Node   string // where: a node's name, "" for this machine
	// Gone, when not nil, delivers why the shard's process or pod is
	// gone, such as "exit status 137" or "OOMKilled", as soon as that is
	// seen.
	Gone <-chan string
}

// Options bound a sharded trial. The zero value of each is its
// default.
type Options struct {
	Lost   time.Duration // the trial ends at most this long after a shard's loss is seen (DefaultLost)
	Clocks int           // clock exchanges with each shard (DefaultClocks)
	// Lead is how long after the shards are posted their measured load
	// starts, beyond their warm-up: the time every shard needs to take
	// its bundle, parse it and open its pool. 0 means a second plus four
	// times the longest clock exchange.
	Lead time.Duration
	// Warmup is how long the shards' warm-up lasts, which they run
	// before the common start; 0 without one.
	Warmup time.Duration
	// Started, when set, is told the common start once it is chosen,
	// before any shard has its bundle.
	Started func(at time.Time)
}

// A Info is what one shard did.
type Info struct {
	Index        int
	Name, Node   string
	Offset       time.Duration // its clock less the coordinator's
	OffsetBound  time.Duration // the offset is within ±OffsetBound
	Start        time.Time     // its measured load's start, on the coordinator's clock
	Warm, Result *record.Result
	Err          error // why it failed, for a lost shard
}

// A Result is what a sharded trial brought back: the shards' results
// merged exactly, and each shard's.
type Result struct {
	Warm, Result *record.Result // merged; nil when a shard was lost
	// Points are the hops of the spans the shards received, offsets
	// from Result.Start (see remote.Run.Points).
	Points []probe.Point
	Shards []Info
	At     time.Time     // the start the coordinator chose, on its clock
	Spread time.Duration // latest shard start less the earliest
}

// A Error is the loss of a shard: the trial ended without a merge.
type Error struct {
	Index  int
	Name   string
	Reason string
	Err    error // what lost it, when an error says so, such as a *cluster.PodFailure; else nil
}

func (e *Error) Error() string {
	return fmt.Sprintf("shard %d (%s) lost: %s", e.Index, e.Name, e.Reason)
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs the trial of b on the members together, shard i of
// len(members) on members[i]: it waits for every agent to be ready,
// measures each one's clock offset, picks one start instant and posts
// each its shard with that instant on its own clock, so that no shard
// sends before every shard has its bundle. When every shard is done it
// merges their results exactly (record.Merge), keeping b.Samples raw
// samples spread fairly over the shards.
//
// A shard that fails, stops answering or whose Gone fires ends the
// trial: the others are told to stop, and Run returns within
// o.Lost with a *Error naming the first shard lost, and what each
// shard brought back, never merged. When ctx ends the shards are told to
// stop and what they measured is merged, marked interrupted.
func Run(ctx context.Context, members []Member, b *remote.Bundle, o Options) (Result, error) {
	n := len(members)
	if n == 0 {
		return Result{}, errors.New("running shards: none")
	}
	run := Result{Shards: make([]Info, n)}
	for i, m := range members {
		run.Shards[i] = Info{Index: i, Name: m.Name, Node: m.Node}
	}
	if err := run.schedule(ctx, members, o); err != nil {
		return run, err
	}
	points, first := run.runEach(ctx, members, b, orDefault(o.Lost, DefaultLost))
	if first != nil {
		return run, first
	}
	run.Spread = spread(run.Shards)
	return run, run.merge(ctx, b, points)
}

// schedule waits for every agent to be ready, measures each one's clock
// and picks the common start instant, run.At: after o.Lead (or a second
// and four of the slowest round trips) and o.Warmup.
func (run *Result) schedule(ctx context.Context, members []Member, o Options) error {
	clocks := o.Clocks
	if clocks <= 0 {
		clocks = DefaultClocks
	}
	err := eachShard(ctx, members, func(ctx context.Context, i int, m Member) error {
		return m.Remote.WaitReady(ctx)
	})
	if err != nil {
		return err
	}
	if err := measureClocks(ctx, members, run.Shards, clocks); err != nil {
		return err
	}
	var maxRTT time.Duration
	for _, s := range run.Shards {
		maxRTT = max(maxRTT, 2*s.OffsetBound)
	}
	lead := o.Lead
	if lead <= 0 {
		lead = time.Second + 4*maxRTT
	}
	run.At = time.Now().Add(lead + o.Warmup)
	if o.Started != nil {
		o.Started(run.At)
	}
	return nil
}

// runEach posts each member its shard of b, starting at run.At on its own
// clock, and waits for them all, then tells the agents not kept to exit.
// The first shard lost (failed, silent for lost, or Gone) stops the others
// and is returned; each shard's result and probe points are kept either
// way.
func (run *Result) runEach(ctx context.Context, members []Member, b *remote.Bundle, lost time.Duration) ([][]probe.Point, *Error) {
	n := len(members)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		mu    sync.Mutex
		first *Error
	)
	lose := func(i int, reason string) {
		mu.Lock()
		if first == nil {
			first = &Error{Index: i, Name: members[i].Name, Reason: reason}
		}
		mu.Unlock()
		stop()
	}
	var wg, watch sync.WaitGroup
	points := make([][]probe.Point, n)
	for i, m := range members {
		bi := *b
		bi.Shard = remote.BundleShard{Index: i, Count: n}
		bi.StartAt = run.At.Add(run.Shards[i].Offset)
		rctx, cancel := context.WithCancel(sctx)
		wg.Go(func() {
			defer cancel()
			if m.Gone != nil {
				watch.Go(func() {
					select {
					case why := <-m.Gone:
						lose(i, why)
					case <-sctx.Done():
					}
				})
			}
			// The agent is told to exit only once every shard is done:
			// an exit seen before then would be a loss.
			rm := *m.Remote
			rm.Keep = true
			if rm.Lost == 0 || rm.Lost > lost {
				rm.Lost = lost
			}
			rr, err := rm.Run(rctx, &bi)
			run.Shards[i].Warm, run.Shards[i].Result, run.Shards[i].Err = rr.Warm, rr.Result, err
			points[i] = rr.Points
			if rr.Result != nil {
				run.Shards[i].Start = rr.Result.Start.Add(-run.Shards[i].Offset)
			}
			if err != nil && ctx.Err() == nil {
				lose(i, err.Error())
			}
		})
	}
	wg.Wait()
	stop()
	watch.Wait() // no loss is watched for from here on
	bg := context.WithoutCancel(ctx)
	for _, m := range members {
		if !m.Remote.Keep {
			wg.Go(func() { _ = m.Remote.Exit(bg) })
		}
	}
	wg.Wait()
	return points, first
}

// merge adds the shards' results up exactly into run.Result, keeping
// b.Samples raw samples, their warm-ups into run.Warm when every shard
// has one, and their probe points, shifted to the merged start, into
// run.Points.
func (run *Result) merge(ctx context.Context, b *remote.Bundle, points [][]probe.Point) error {
	n := len(run.Shards)
	results, warms := make([]*record.Result, 0, n), make([]*record.Result, 0, n)
	for _, s := range run.Shards {
		if s.Result == nil {
			return fmt.Errorf("shard %d (%s): no result: %w", s.Index, s.Name, cmp.Or(s.Err, ctx.Err()))
		}
		results = append(results, s.Result)
		if s.Warm != nil {
			warms = append(warms, s.Warm)
		}
	}
	var err error
	if run.Result, err = record.Merge(results, record.MergeOptions{KeepRaw: b.Samples}); err != nil {
		return fmt.Errorf("merging the shards' results: %w", err)
	}
	if b.Trial.Rate > 0 {
		run.Result.TargetRate = b.Trial.Rate // the plan's level, exactly, not a sum of shares
	}
	for i, ps := range points {
		shift := run.Shards[i].Result.Start.Sub(run.Result.Start)
		for _, p := range ps {
			p.T += shift
			run.Points = append(run.Points, p)
		}
	}
	if len(warms) == n {
		if run.Warm, err = record.Merge(warms, record.MergeOptions{}); err != nil {
			return fmt.Errorf("merging the shards' warm-ups: %w", err)
		}
	}
	return nil
}

// Skewed returns the shards whose clock may be off by more than skew.
func (r Result) Skewed(skew time.Duration) []Info {
	var out []Info
	for _, s := range r.Shards {
		if Skewed(s.Offset, s.OffsetBound, orDefault(skew, spec.DefaultShardSkew)) {
			out = append(out, s)
		}
	}
	return out
}

// spread is the latest start of the shards less the earliest, on the
// coordinator's clock.
func spread(shards []Info) time.Duration {
	var lo, hi time.Time
	for _, s := range shards {
		if s.Start.IsZero() {
			continue
		}
		if lo.IsZero() || s.Start.Before(lo) {
			lo = s.Start
		}
		if s.Start.After(hi) {
			hi = s.Start
		}
	}
	return hi.Sub(lo)
}

// eachShard calls f for every member concurrently, and returns the
// first error, naming its shard, once all have returned; an error
// cancels the others' context.
func eachShard(ctx context.Context, members []Member, f func(context.Context, int, Member) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	for i, m := range members {
		wg.Go(func() {
			if err := f(ctx, i, m); err != nil {
				once.Do(func() { first = &Error{Index: i, Name: m.Name, Reason: err.Error()} })
				cancel()
			}
		})
	}
	wg.Wait()
	return first
}

// measureClocks sets each shard's clock offset and its bound from
// clocks exchanges with its agent (see Offset). The exchanges go one
// at a time, a round over the shards after another: exchanges at once
// would queue behind each other in the API server or on the CPUs, and
// the round trips, which bound the offsets, would grow with the shards.
// That costs len(members) × clocks round trips.
func measureClocks(ctx context.Context, members []Member, shards []Info, clocks int) error {
	samples := make([][]remote.ClockSample, len(members))
	for range clocks {
		for i, m := range members {
			s, err := m.Remote.Clock(ctx)
			if err != nil {
				return &Error{Index: i, Name: m.Name, Reason: err.Error()}
			}
			samples[i] = append(samples[i], s)
		}
	}
	for i, m := range members {
		off, bound, ok := Offset(samples[i])
		if !ok {
			return &Error{Index: i, Name: m.Name, Reason: fmt.Sprintf("agent %s: no clock exchange with a round trip", m.Remote.URL)}
		}
		shards[i].Offset, shards[i].OffsetBound = off, bound
	}
	return nil
}

// StoreShards returns the shards as a results database keeps them.
func (r Result) StoreShards() []store.Shard {
	out := make([]store.Shard, 0, len(r.Shards))
	for _, s := range r.Shards {
		ss := store.Shard{Index: s.Index, Name: s.Name, Node: s.Node, Offset: s.Offset, OffsetBound: s.OffsetBound,
			Start: s.Start, Result: s.Result}
		if s.Err != nil {
			ss.Error = s.Err.Error()
		}
		out = append(out, ss)
	}
	return out
}

// orDefault returns d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
