package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/shard"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// inShards runs the trial's warm-up and measured load on the spec's
// shards, started for the trial — agent processes of this machine, or
// the pods of an Indexed Job on the cluster — which send their shares
// together and whose results merge exactly (see shard.Run). The probes,
// side-loads and profiles run here from the shards' common start. A
// shard lost fails the trial with the flag shard_lost; a shard whose
// clock may be off by more than clock_skew flags it clock_skew.
func (tr *trialRun) inShards(ctx context.Context) (*record.Result, error) {
	r, t := tr.r, tr.t
	b, err := tr.bundle()
	if err != nil {
		return nil, err
	}
	var warm time.Duration
	if wcfg, ok, err := r.Spec.WarmupFor(t, tr.l.entry); err == nil && ok {
		warm = wcfg.Duration
	}
	pctx, stopProbes := context.WithCancel(ctx)
	defer stopProbes()
	begin := func(at time.Time) {
		tr.start = at
		tr.wg.Go(func() {
			tm := time.NewTimer(time.Until(at))
			defer tm.Stop()
			select {
			case <-tm.C:
			case <-pctx.Done():
				return
			}
			tr.startProbes(pctx)
			if err := tr.startSideloads(pctx); err != nil {
				r.logf("trial %d: %v", t.Position, err)
			}
			tr.startPprof(pctx)
		})
	}
	o := shard.Options{Warmup: warm, Started: begin}
	var run shard.Result
	if r.Spec.LoadPod != nil {
		lp := r.loadPod(t)
		lp.Shards = r.Spec.Shards.Count
		run, err = shard.RunInPods(ctx, r.kube, lp, b, o, func(err error) { r.logf("trial %d: %v", t.Position, err) })
	} else {
		run, err = r.localShards(ctx, b, o)
	}
	stopProbes()
	tr.wg.Wait()
	tr.end = time.Now()
	tr.f.info.Shards = run.StoreShards()
	tr.shards = &run
	var se *shard.Error
	if errors.As(err, &se) {
		tr.f.info.Flags = append(tr.f.info.Flags, store.Flag{Name: shard.FlagShardLost, Reason: se.Error()})
	}
	if err != nil {
		return nil, err
	}
	tr.f.warm = run.Warm
	// The shards' points are offsets from the merged start; the trial's,
	// from the common start.
	shift := run.Result.Start.Sub(tr.start)
	for _, p := range run.Points {
		p.T += shift
		tr.points = append(tr.points, p)
	}
	return run.Result, nil
}

// localShards runs b's trial on the spec's shards as agent processes of
// this machine, started for the trial.
func (r *Runner) localShards(ctx context.Context, b *remote.Bundle, o shard.Options) (shard.Result, error) {
	cpus, err := r.shardCPUs()
	if err != nil {
		return shard.Result{}, err
	}
	ls, err := shard.StartLocal(r.Spec.Shards.Count, shard.LocalOptions{Binary: r.Binary, CPUs: cpus, Output: r.NodeOutput})
	if err != nil {
		return shard.Result{}, err
	}
	defer ls.Stop()
	return ls.Run(ctx, b, o)
}

// shardCPUs deals the spec's load CPUs among its shards, each its own
// share; none when the spec pins no load CPUs.
func (r *Runner) shardCPUs() ([][]int, error) {
	if r.Spec.CPUs.Load == "" {
		return nil, nil
	}
	cpus, err := load.ParseCPUList(r.Spec.CPUs.Load)
	if err != nil {
		return nil, fmt.Errorf("cpus.load: %w", err)
	}
	n := r.Spec.Shards.Count
	if len(cpus) < n {
		return nil, fmt.Errorf("cpus.load %s: %d CPUs for %d shards: give each shard one at least", r.Spec.CPUs.Load, len(cpus), n)
	}
	out := make([][]int, n)
	for i := range n {
		out[i] = cpus[i*len(cpus)/n : (i+1)*len(cpus)/n]
	}
	return out, nil
}

// shardFlags adds to flags what only a sharded trial can tell: the
// shards whose clocks may be off by more than the spec's bound
// (clock_skew), and which shards fell behind when the merged load did
// (generator_saturated names them).
func (tr *trialRun) shardFlags(flags []store.Flag) []store.Flag {
	run := tr.shards
	if run == nil {
		return flags
	}
	if skewed := run.Skewed(tr.r.Spec.Shards.ClockSkew); len(skewed) > 0 {
		var why []string
		for _, s := range skewed {
			why = append(why, fmt.Sprintf("shard %d (%s) %s ± %s", s.Index, s.Name, units.Duration(s.Offset), units.Duration(s.OffsetBound)))
		}
		flags = append(flags, store.Flag{Name: shard.FlagClockSkew, Reason: fmt.Sprintf("clock offset beyond %s: %s",
			units.Duration(tr.r.Spec.Shards.ClockSkew), strings.Join(why, ", "))})
	}
	v := tr.r.Spec.Validity
	for i, f := range flags {
		if f.Name != FlagGeneratorSaturated {
			continue
		}
		var behind []string
		for _, s := range run.Shards {
			if s.Result != nil && saturated(v, s.Result) != "" {
				behind = append(behind, fmt.Sprintf("shard %d (%s)", s.Index, s.Name))
			}
		}
		if len(behind) > 0 {
			flags[i].Reason += "; behind: " + strings.Join(behind, ", ")
		}
	}
	return flags
}

// bundle sets the trial's measured load, as an agent elsewhere builds it,
// and returns the bundle that agent runs.
func (tr *trialRun) bundle() (*remote.Bundle, error) {
	var err error
	if tr.cfg, err = tr.r.Spec.LoadFor(tr.t, tr.l.entry); err != nil {
		return nil, err
	}
	return remote.NewBundle(tr.r.Spec, tr.t, tr.l.entry, tr.r.samples())
}
