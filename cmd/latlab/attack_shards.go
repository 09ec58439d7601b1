package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/shard"
	"github.com/latlab/latlab/store"
)

// shardsHelp documents --shards in attack's manual.
const shardsHelp = `With --shards N --local the load is sent by N latlab agent processes on this
machine that act as one (with --kubernetes instead, by the N pods of an
Indexed Job spread over the cluster's nodes): request i of the open-loop schedule goes to shard
i mod N (Poisson arrivals included, so the union is the asked schedule), the
closed loop's workers and -n are dealt as evenly as they go, no shard sends
before every shard has its part and its clock is measured, all start at one
instant, and their results are merged exactly: histograms added bucket by
bucket, never percentiles averaged. With --cpus the list is dealt among the
shards, each pinned to its own share. After the merged result comes a line
per shard: what it sent, its achieved rate, p50 and p99, its clock's offset
from this one's and its start after the earliest shard's, under how far
apart they started and the clock furthest off; the JSON has them under
"shards". With -o FILE.db each shard's own result is kept beside the merged
one. A shard that dies ends the attack with exit 1, naming it.`

// shardFlags are attack's flags that send its load from several shards.
type shardFlags struct {
	n     int  // --shards
	local bool // --local
}

// register adds the flags to fl.
func (s *shardFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&s.n, "shards", 0, "send the load from this many generators that act as one, merged exactly (with --local or --kubernetes)")
	fl.BoolVar(&s.local, "local", false, "with --shards: the shards are processes of this machine")
}

// check refuses --shards without --local or --kubernetes, and --local
// without --shards or with --kubernetes.
func (s *shardFlags) check(set func(string) bool, pod bool) error {
	switch {
	case set("local") && !set("shards"):
		return usagef("--local says where --shards run: give --shards N too")
	case !set("shards"):
		return nil
	case s.n < 1:
		return usagef("--shards %d: want at least 1", s.n)
	case pod && s.local:
		return usagef("--local runs the shards here, --kubernetes in pods of a cluster: give one of them")
	case !pod && !s.local:
		return usagef("--shards %d: say where they run: --local, processes of this machine, or --kubernetes, pods of a cluster", s.n)
	}
	return nil
}

// shardAttack is an attack whose load N local shards send: the trial of
// a one-variant experiment (see podSpec), as from a pod.
type shardAttack struct {
	n      int
	cpus   [][]int
	bundle *remote.Bundle
	warmup time.Duration

	shards []store.Shard // after run
}

// shardAttack prepares the attack cfg to run on f.shards.n local shards.
func (f *attackFlags) shardAttack(args []string, cfg load.Config) (*shardAttack, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	_, b, err := f.podBundle(cfg, args, dir)
	if err != nil {
		return nil, err
	}
	sa := &shardAttack{n: f.shards.n, bundle: b, warmup: cfg.Warmup}
	if f.cpus != "" {
		cpus, err := load.ParseCPUList(f.cpus)
		if err != nil {
			return nil, usagef("--cpus: %v", err)
		}
		if len(cpus) < sa.n {
			return nil, usagef("--cpus %s: %d CPUs for %d shards: give each shard one at least", f.cpus, len(cpus), sa.n)
		}
		for i := range sa.n {
			sa.cpus = append(sa.cpus, cpus[i*len(cpus)/sa.n:(i+1)*len(cpus)/sa.n])
		}
	}
	return sa, nil
}

// run starts the shards, runs the attack on them together and returns
// the merged result; the shards are gone when it returns. A shard that
// dies is an error naming it.
func (sa *shardAttack) run(ctx context.Context, line *report.Line[report.AttackStatus], stderr io.Writer) (*record.Result, error) {
	ls, err := shard.StartLocal(sa.n, shard.LocalOptions{CPUs: sa.cpus, Output: stderr})
	if err != nil {
		return nil, err
	}
	defer ls.Stop()
	run, err := ls.Run(ctx, sa.bundle, shard.Options{Warmup: sa.warmup})
	sa.shards = run.StoreShards()
	if err != nil {
		return nil, err
	}
	if line != nil {
		line.Clear()
	}
	for _, s := range run.Skewed(0) {
		fmt.Fprintf(stderr, "latlab: shard %d (%s): its clock is %s off this one's, ± %s\n", s.Index, s.Name, s.Offset, s.OffsetBound)
	}
	return run.Result, nil
}
