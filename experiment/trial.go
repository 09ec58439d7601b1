package experiment

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// finished is one trial's outcome, on its way to the database.
type finished struct {
	trial    Trial
	info     store.RunInfo
	res      *record.Result
	warm     *record.Result
	points   []store.ProbePoint
	profiles []store.Profile
	err      error
}

func (r *Runner) samples() int64 {
	switch {
	case r.Samples < 0:
		return 0
	case r.Samples == 0:
		return DefaultSamples
	}
	return r.Samples
}

// trial runs t against l: warm-up, then the measured attack with
// side-loads and probes alongside, then the validity checks.
func (r *Runner) trial(ctx context.Context, l *live, t Trial, k, n int) *finished {
	f := &finished{info: r.info(t, time.Now(), store.Done)}
	fail := func(err error) *finished {
		f.info.Status, f.info.Error, f.err = store.Failed, err.Error(), err
		if ctx.Err() != nil {
			f.info.Status = store.Interrupted
		}
		f.info.EndedAt = time.Now()
		return f
	}
	wcfg, warm, err := r.Spec.WarmupFor(t, l.entry)
	if err != nil {
		return fail(err)
	}
	if warm {
		if f.warm, err = load.Attack(ctx, wcfg); err != nil {
			return fail(fmt.Errorf("warm-up: %w", err))
		}
		if ctx.Err() != nil {
			return fail(errInterrupted)
		}
	}
	cfg, err := r.Spec.LoadFor(t, l.entry)
	if err != nil {
		return fail(err)
	}
	cfg.KeepRaw = r.samples()

	var (
		mu       sync.Mutex
		points   []probe.Point
		profiles []store.Profile
		wg       sync.WaitGroup
	)
	emit := func(p []probe.Point) {
		mu.Lock()
		points = append(points, p...)
		mu.Unlock()
	}
	pctx, stopProbes := context.WithCancel(ctx)
	defer stopProbes()
	start := time.Now()
	for _, p := range r.probes(l) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p(pctx, start, emit); err != nil {
				r.logf("trial %d: probe: %v", t.Position, err)
			}
		}()
	}
	for _, sl := range r.Spec.Sideloads {
		scfg, err := sl.Config(sideloadSpan(cfg))
		if err != nil {
			return fail(fmt.Errorf("side-load %s: %w", sl.Target, err))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := load.Attack(pctx, scfg); err != nil {
				r.logf("trial %d: side-load %s: %v", t.Position, sl.Target, err)
			}
		}()
	}
	if pp := r.Spec.Probes.Pprof; pp != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := r.profile(pctx, l, pp, cfg.Duration)
			mu.Lock()
			profiles = append(profiles, got...)
			mu.Unlock()
		}()
	}
	if r.Progress != nil {
		cfg.Started = func(rec *record.Recorder) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.showProgress(pctx, rec, t, k, n, cfg.Duration)
			}()
		}
	}
	res, err := load.Attack(ctx, cfg)
	stopProbes()
	wg.Wait()
	if err != nil {
		return fail(err)
	}
	end := time.Now()
	res.TargetRate = t.Rate // the plan's level as the spec gave it, not the schedule's mean; 0 in closed loop
	f.res = res
	if pq := r.Spec.Probes.Prometheus; pq != nil {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		pts, errs := probe.QueryRange(qctx, pq.URL, pq.Queries, start, end, pq.Step)
		cancel()
		points = append(points, pts...)
		for _, e := range errs {
			r.logf("trial %d: %v", t.Position, e)
		}
	}
	if r.traces != nil {
		time.Sleep(400 * time.Millisecond) // the nodes' last spans: exported every 200 ms
		points = append(points, r.traces.PointsBetween(start, end)...)
		r.traces.Forget(end)
	}
	f.points = storePoints(points, start)
	f.profiles = profiles
	key := t.cell()
	f.info.Flags = r.Spec.Validity.Check(RunCheck{Result: res, Points: points, Siblings: r.siblings[key], Success: cfg.Success})
	sib := *res
	sib.Raw = nil // siblings are compared by their figures, not kept whole
	r.siblings[key] = append(r.siblings[key], &sib)
	f.info.EndedAt = end
	if res.Interrupted {
		f.info.Status, f.info.Error = store.Interrupted, "interrupted"
	}
	return f
}

// sideloadSpan is how long side-loads run: the trial's duration, or until
// they are stopped when the trial counts requests instead.
func sideloadSpan(cfg load.Config) time.Duration {
	if cfg.Duration > 0 {
		return cfg.Duration
	}
	return 24 * time.Hour
}

// probeFunc runs one probe until ctx ends.
type probeFunc func(ctx context.Context, start time.Time, emit func([]probe.Point)) error

// probes returns the probes of a trial on l: metrics scraping of the
// graph's nodes and the spec's URLs, CPU and RSS of the graph's nodes,
// the spec's processes and latlab itself, and the machine's load.
func (r *Runner) probes(l *live) []probeFunc {
	var out []probeFunc
	if m := r.Spec.Probes.Metrics; m != nil {
		urls := append(l.metricsURLs(), m.URLs...)
		if len(urls) > 0 {
			s := &probe.Scraper{URLs: urls, Interval: m.Interval, Window: m.Window}
			out = append(out, s.Run)
		}
	}
	pids := append([]int(nil), l.pids...)
	if p := r.Spec.Probes.Process; p != nil {
		pids = append(pids, p.PIDs...)
		for _, name := range p.Names {
			found, err := probe.FindPIDs(name)
			if err != nil {
				r.logf("process probe: finding %q: %v", name, err)
			}
			pids = append(pids, found...)
		}
	}
	if len(pids) > 0 || r.Spec.Probes.Process != nil {
		p := &probe.Process{PIDs: pids, Self: true}
		out = append(out, p.Run)
	}
	// Every run measures what else kept the machine busy: it explains
	// flags such as generator_saturated when other work took the CPUs.
	m := &probe.Machine{PIDs: pids}
	return append(out, m.Run)
}

// profile takes a CPU and a heap profile of the variant at the spec's
// point of the trial.
func (r *Runner) profile(ctx context.Context, l *live, pp *Pprof, d time.Duration) []store.Profile {
	url := pp.URL
	if url == "" {
		url = l.entry
		if url == "" {
			url = l.v.Target
		}
	}
	select {
	case <-time.After(time.Duration(float64(d) * pp.At)):
	case <-ctx.Done():
		return nil
	}
	var out []store.Profile
	for _, kind := range []string{"cpu", "heap"} {
		taken := time.Now()
		p, err := probe.CaptureProfile(ctx, url, kind, time.Duration(pp.Seconds)*time.Second)
		if err != nil {
			r.logf("variant %s: %s profile: %v", l.v.Name, kind, err)
			continue
		}
		sp := store.Profile{Target: url, Kind: kind, TakenAt: taken, Data: p.Raw, Unit: p.Unit}
		if kind == "cpu" {
			sp.Duration = time.Duration(pp.Seconds) * time.Second
		}
		for _, fn := range p.Top {
			sp.Top = append(sp.Top, store.ProfileFunc{Function: fn.Name, Flat: fn.Flat, Cum: fn.Cum})
		}
		out = append(out, sp)
	}
	return out
}

// storePoints turns probe points, timed from start, into stored ones.
func storePoints(points []probe.Point, start time.Time) []store.ProbePoint {
	out := make([]store.ProbePoint, len(points))
	for i, p := range points {
		out[i] = store.ProbePoint{Probe: p.Probe, Series: p.Series, Labels: p.Labels, Time: start.Add(p.T), Value: p.Value}
	}
	return out
}
