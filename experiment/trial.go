package experiment

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/latlab/latlab/shard"
	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// finished is one trial's outcome, on its way to the database.
type finished struct {
	trial    spec.Trial
	info     store.RunInfo
	res      *record.Result
	warm     *record.Result
	points   []store.ProbePoint
	profiles []store.Profile
	err      error
	flushed  chan struct{} // not a run: the writer closes it once every run before it is written
}

// samples returns how many requests of each run are kept raw.
func (r *Runner) samples() int64 {
	if r.Samples == nil {
		return load.DefaultSamples
	}
	return *r.Samples
}

// traceFlush is how long a trial waits, after its attack, for the nodes'
// last spans.
var traceFlush = probe.TraceFlush

// trialRun is one trial under way: what its steps share.
type trialRun struct {
	r          *Runner
	l          *live
	t          spec.Trial
	k, n       int // its place among the trials this Run runs
	f          *finished
	cfg        load.Config // the measured attack's
	start, end time.Time   // the measured attack's

	mu       sync.Mutex // points and profiles, until wg is done
	points   []probe.Point
	profiles []store.Profile
	wg       sync.WaitGroup // what runs alongside the measured attack

	shards *shard.Result // of a sharded trial, once run
}

// trial runs t against l: warm-up, then the measured attack with
// side-loads and probes alongside, then the validity checks.
func (r *Runner) trial(ctx context.Context, l *live, t spec.Trial, k, n int) *finished {
	tr := &trialRun{r: r, l: l, t: t, k: k, n: n, f: &finished{info: r.info(t, time.Now(), store.Done)}}
	var res *record.Result
	var err error
	if r.Spec.Shards != nil {
		res, err = tr.inShards(ctx)
	} else if r.Spec.LoadPod != nil {
		res, err = tr.inPod(ctx)
	} else {
		res, err = tr.here(ctx)
	}
	if err != nil {
		return tr.fail(ctx, err)
	}
	t.Stamp(res, tr.f.warm, load.Shard{})
	tr.f.res = res
	tr.queryPrometheus(ctx)
	_ = tr.collectTraces(ctx) // cut short by ctx, it keeps the spans already in
	tr.judge(res)
	return tr.f
}

// fail ends the trial with err: failed, or interrupted if ctx has ended.
func (tr *trialRun) fail(ctx context.Context, err error) *finished {
	f := tr.f
	f.info.Status, f.info.Error, f.err = store.Failed, err.Error(), err
	if ctx.Err() != nil {
		f.info.Status = store.Interrupted
	}
	f.info.EndedAt = time.Now()
	return f
}

// here runs the trial's load from this process: the warm-up, then the
// measured attack on the connections the warm-up left.
func (tr *trialRun) here(ctx context.Context) (*record.Result, error) {
	var err error
	if tr.cfg, err = tr.r.Spec.LoadFor(tr.t, tr.l.entry); err != nil {
		return nil, err
	}
	tr.cfg.KeepRaw = tr.r.samples()
	a, err := load.NewAttacker(tr.cfg)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if err := tr.warmUp(ctx, a); err != nil {
		return nil, err
	}
	return tr.measure(ctx, a)
}

// warmUp runs the spec's warm-up of the trial on a, if it has one.
func (tr *trialRun) warmUp(ctx context.Context, a *load.Attacker) error {
	wcfg, warm, err := tr.r.Spec.WarmupFor(tr.t, tr.l.entry)
	if err != nil || !warm {
		return err
	}
	if tr.f.warm, err = a.Warm(ctx, wcfg.Model, wcfg.Duration, nil); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// measure runs a's measured attack with the probes, side-loads, pprof
// capture and progress line alongside, and returns once they have all
// stopped.
func (tr *trialRun) measure(ctx context.Context, a *load.Attacker) (*record.Result, error) {
	pctx, stopProbes := context.WithCancel(ctx)
	defer stopProbes()
	tr.start = time.Now()
	tr.startProbes(pctx)
	if err := tr.startSideloads(pctx); err != nil {
		return nil, err
	}
	tr.startPprof(pctx)
	res := a.Run(ctx, time.Time{}, tr.progress(pctx))
	stopProbes()
	tr.wg.Wait()
	tr.end = time.Now()
	return res, nil
}

// startProbes runs the trial's probes until ctx ends.
func (tr *trialRun) startProbes(ctx context.Context) {
	emit := func(p []probe.Point) {
		tr.mu.Lock()
		tr.points = append(tr.points, p...)
		tr.mu.Unlock()
	}
	for _, p := range tr.r.probes(tr.l) {
		tr.wg.Go(func() {
			if err := p(ctx, tr.start, emit); err != nil {
				tr.r.logf("trial %d: probe: %v", tr.t.Position, err)
			}
		})
	}
}

// startSideloads runs the spec's side-loads until ctx ends or their span
// is over.
func (tr *trialRun) startSideloads(ctx context.Context) error {
	for _, sl := range tr.r.Spec.Sideloads {
		scfg, err := sl.Config(sideloadSpan(tr.cfg))
		if err != nil {
			return fmt.Errorf("side-load %s: %w", sl.Target, err)
		}
		tr.wg.Go(func() {
			if _, err := load.Attack(ctx, scfg); err != nil {
				tr.r.logf("trial %d: side-load %s: %v", tr.t.Position, sl.Target, err)
			}
		})
	}
	return nil
}

// startPprof captures the variant's profiles, if the spec asks for them.
func (tr *trialRun) startPprof(ctx context.Context) {
	pp := tr.r.Spec.Probes.Pprof
	if pp == nil {
		return
	}
	d := tr.cfg.Duration
	tr.wg.Go(func() {
		got := tr.r.profile(ctx, tr.l, pp, d)
		tr.mu.Lock()
		tr.profiles = append(tr.profiles, got...)
		tr.mu.Unlock()
	})
}

// progress returns the measured attack's hook that draws the live status
// line once it has started, until ctx ends; nil without a progress line.
func (tr *trialRun) progress(ctx context.Context) func(*record.Recorder) {
	if tr.r.Progress == nil {
		return nil
	}
	return func(rec *record.Recorder) {
		tr.wg.Go(func() {
			tr.r.showProgress(ctx, rec, tr.t, tr.k, tr.n, tr.cfg.Duration)
		})
	}
}

// queryPrometheus adds the spec's PromQL queries over the attack's window
// to the points. They are asked even when ctx has ended, within 30 s: the
// run they describe is kept.
func (tr *trialRun) queryPrometheus(ctx context.Context) {
	pq := tr.r.Spec.Probes.Prometheus
	if pq == nil {
		return
	}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	pts, errs := probe.QueryRange(qctx, pq.URL, pq.Queries, tr.start, tr.end, pq.Step)
	cancel()
	tr.points = append(tr.points, pts...)
	for _, e := range errs {
		tr.r.logf("trial %d: %v", tr.t.Position, e)
	}
}

// collectTraces waits traceFlush for the nodes' last spans, or until ctx
// ends, and adds the hops of the spans received in the attack's window to
// the points. It returns ctx's error if ctx cut the wait short.
func (tr *trialRun) collectTraces(ctx context.Context) error {
	if tr.r.traces == nil {
		return nil
	}
	points, err := tr.r.traces.Take(ctx, tr.start, tr.end, traceFlush)
	tr.points = append(tr.points, points...)
	return err
}

// judge keeps the points and profiles in the trial's outcome and flags it
// by the spec's validity checks, against the runs of the same variant and
// level before it.
func (tr *trialRun) judge(res *record.Result) {
	r, t, f := tr.r, tr.t, tr.f
	f.points = storePoints(tr.points, tr.start)
	f.profiles = tr.profiles
	key := t.Cell()
	f.info.Flags = tr.shardFlags(Flags(r.Spec.Validity, RunCheck{Result: res, Points: tr.points, Siblings: r.siblings[key], Success: tr.cfg.Success}))
	sib := *res
	sib.Raw = nil // siblings are compared by their figures, not kept whole
	r.siblings[key] = append(r.siblings[key], &sib)
	f.info.EndedAt = tr.end
	if res.Interrupted {
		f.info.Status, f.info.Error = store.Interrupted, "interrupted"
	}
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
// the spec's processes and latlab itself, CPU and memory of the pods of
// a variant on a cluster, and the machine's load.
func (r *Runner) probes(l *live) []probeFunc {
	var out []probeFunc
	if m := r.Spec.Probes.Metrics; m != nil {
		if l.set != nil {
			out = append(out, r.kubeScraper(l, m))
		}
		urls := l.metricsURLs()
		if m.TokenFile == "" && m.CACert == "" && len(m.Families) == 0 {
			urls = append(urls, m.URLs...)
		} else if len(m.URLs) > 0 {
			// The credentials and the choice of families are for the
			// spec's URLs only, never for the graph's nodes.
			out = append(out, r.urlScraper(m))
		}
		if len(urls) > 0 {
			s := &probe.Scraper{URLs: urls, Interval: m.Interval, Window: m.Window}
			out = append(out, s.Run)
		}
	}
	if l.set != nil {
		out = append(out, r.kubeProcesses(l))
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
		p := &probe.Process{PIDs: pids, Names: l.names, Self: true}
		out = append(out, p.Run)
	}
	// Every run measures what else kept the machine busy: it explains
	// flags such as generator_saturated when other work took the CPUs.
	m := &probe.Machine{PIDs: pids}
	return append(out, m.Run)
}

// profile takes a CPU and a heap profile of the variant at the spec's
// point of the trial: from the spec's url:, else from the variant's
// entry or target, through the API server's service proxy for a variant
// on a cluster.
func (r *Runner) profile(ctx context.Context, l *live, pp *spec.Pprof, d time.Duration) []store.Profile {
	url := pp.URL
	if url == "" {
		url = l.entry
		if rest, ok := strings.CutPrefix(url, "grpc://"); ok {
			// A gRPC entry node serves its profiles over HTTP on its port.
			host, _, _ := strings.Cut(rest, "/")
			url = "http://" + host
		}
		if url == "" {
			url = l.v.Target
		}
	}
	from, client := url, (*http.Client)(nil)
	if pp.URL == "" && l.set != nil {
		u, err := r.kube.ServiceProxyURL(url, l.namespace)
		if err != nil {
			r.logf("variant %s: profiles: %v; give probes.pprof.url", l.v.Name, err)
			return nil
		}
		from, client = u.String(), r.kube.HTTPClient()
	}
	select {
	case <-time.After(time.Duration(float64(d) * pp.At)):
	case <-ctx.Done():
		return nil
	}
	var out []store.Profile
	for _, kind := range []string{"cpu", "heap"} {
		taken := time.Now()
		p, err := probe.CaptureProfileWith(ctx, client, from, kind, time.Duration(pp.Seconds)*time.Second)
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
