package load

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latlab/latlab/record"
)

// Config describes one attack. Source and Model are required; everything
// else has a usable zero value.
type Config struct {
	Source    Source
	Model     Model
	Transport Options
	Duration  time.Duration   // stop sending after this long; 0 means no limit
	Count     int64           // stop after this many iterations; 0 means no limit
	Warmup    time.Duration   // load first for this long, never recorded
	Interval  time.Duration   // length of one interval of the series; 0 means 1 s
	Success   *record.CodeSet // nil means every code below 400
	KeepRaw   int64           // keep this many measured requests raw (Result.Raw); 0 keeps none
	// Shard, when set, sends only this shard's part of the load, for
	// Shard.Count generators started together whose results merge into
	// the whole (see Shard). An open loop sends its requests of the
	// schedule (Sharded), with Result.TargetRate the shard's part of the
	// rate; a closed loop starts its share of the workers, and a ramp its
	// share of each burst, so that the shards' workers together ramp as
	// asked; Count is split by Shard.Share. Duration is the same in every
	// shard, and so is Warmup, whose load splits as the measured one does.
	// MaxInFlight, Pool and Transport.Connections, when set, are split by
	// Shard.Share, at least 1 each (left 0, each shard takes the default).
	// KeepRaw is not split: each shard keeps up to KeepRaw, and merging
	// the shards' results keeps what the whole load's cap allows. A
	// Sequential load cannot be split; see Shard.Check for the rest.
	Shard Shard
	// Pool is how many connections an open loop opens before it starts,
	// and keeps: 0 sizes the pool from the rate (see PoolService); a
	// negative number opens none before and sizes it from the rate. Past
	// the pool, a request waits for a kept connection as long as a dial
	// lately took (at most GrowAfter) before one is opened for it. After
	// a warm-up the pool holds what the warm-up opened, at least twice
	// its peak in flight.
	Pool int
	// Realtime says when an open loop's event loops run as real-time
	// threads (SCHED_FIFO), ahead of everything else this machine runs,
	// so that a loop sends on time however busy the machine: by default
	// while the fair scheduler wakes it late and it is light
	// (RealtimeAuto), never (RealtimeOff) or always (RealtimeOn). It
	// changes nothing for a closed loop, a ramp or net/http.
	Realtime Realtime
	// Threads is how many event loops, each a thread, the lean HTTP/1.1
	// client runs the load on; 0 chooses: for an open loop one per
	// 100,000/s of its peak rate, for a closed loop or a ramp as
	// closedLoops does (one for a target on this machine, which needs
	// CPUs of its own to answer); never more than its connections. It
	// changes nothing for HTTP/2 or net/http.
	Threads int
	// Started, if set, is called with the recorder of Attack's measured
	// phase as it starts, for live progress.
	Started func(*record.Recorder)
}

// NewTransport returns the transport o asks for: the lean HTTP/1.1 client,
// or net/http for HTTP/2 and when o.NetHTTP is set.
func NewTransport(o Options) (Transport, error) {
	if o.HTTP2 || o.H2C || o.NetHTTP {
		return newNetHTTP(o)
	}
	return newH1(o), nil
}

// Attack runs cfg's load, after its warm-up if it has one, and returns
// what it measured. When ctx ends, sending stops, requests in flight
// finish (up to the timeout) and the partial result comes back marked
// Interrupted; an error means the attack could not start.
func Attack(ctx context.Context, cfg Config) (*record.Result, error) {
	a, err := NewAttacker(cfg)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	var warm *record.Result
	if cfg.Warmup > 0 {
		if warm, err = a.Warm(ctx, nil, cfg.Warmup, nil); err != nil {
			return nil, err
		}
	}
	res := a.Run(ctx, time.Time{}, cfg.Started)
	if warm != nil {
		res.WarmupRequests = warm.Requests
	}
	return res, nil
}

// ends reports whether a schedule stops by itself.
func ends(p Pacer) bool {
	switch p := p.(type) {
	case Stages:
		return true
	case *Poisson:
		return ends(p.Of)
	case Sharded:
		return ends(p.Pacer)
	}
	return false
}

func checkModel(m Model) error {
	switch m := m.(type) {
	case Open:
		if m.Pacer == nil {
			return errors.New("attack: open loop needs a schedule")
		}
		if m.MaxInFlight < 0 {
			return errors.New("attack: the cap on requests in flight must be positive")
		}
	case Closed:
		if m.Workers < 1 {
			return fmt.Errorf("attack: closed loop needs at least 1 worker, got %d", m.Workers)
		}
	case Ramp:
		if m.Workers < 1 || m.Burst < 1 || m.Every <= 0 {
			return fmt.Errorf("attack: a ramp needs workers, a burst and a period, got %d, %d, %s", m.Workers, m.Burst, m.Every)
		}
	case Sequential:
	default:
		return errors.New("attack: no load model")
	}
	return nil
}

func stepNames(src Source) []string {
	if n := src.Steps(); len(n) > 1 {
		return n
	}
	return nil
}

// runner runs one phase of an attack: the warm-up or the measured run.
type runner struct {
	cfg    *Config
	tr     Transport
	eng    *engine // the open loop's event loops; nil runs it on goroutines
	rec    *record.Recorder
	nsteps int
	ctx    context.Context // the caller's: its end stops sending
	reqCtx context.Context // requests in flight: not cancelled by ctx
	start  time.Duration   // on the package clock
	end    time.Duration   // on the package clock; 0 means none
	dur    time.Duration   // the phase's length; 0 means none
	at     time.Time       // when the phase starts at the earliest; zero means when ready
	limit  int64
	seq    counter
	unsent atomic.Int64 // due before the end, never sent

	stopped  atomic.Bool
	nap      bool // sleepUntil may nap on its thread: there is a P to spare
	stopc    chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

func newRunner(ctx context.Context, cfg *Config, tr Transport, eng *engine, d time.Duration, limit int64) *runner {
	r := &runner{
		cfg:    cfg,
		tr:     tr,
		eng:    eng,
		nsteps: len(cfg.Source.Steps()),
		ctx:    ctx,
		reqCtx: context.WithoutCancel(ctx),
		limit:  limit,
		stopc:  make(chan struct{}),
	}
	r.dur = d
	// The start is fixed by begin, once the recorder (whose raw samples
	// alone may take tens of milliseconds to allocate) and the loops are
	// ready: nothing set up here may delay the first request.
	r.rec = record.NewRecorder(time.Now(), record.Config{Interval: cfg.Interval, Steps: stepNames(cfg.Source), Success: cfg.Success,
		KeepRaw: cfg.KeepRaw})
	return r
}

// startLead is how far ahead of the moment everything is ready a phase's
// start is set: time for the event loops, waiting at their barrier, to
// wake and be on their first request's mark before it is due.
const startLead = time.Millisecond

// begin fixes the phase's start lead from now (or at r.at, when that is
// later), and its end, then starts
// the recorder, the caller's hook and the watch over the deadline.
func (r *runner) begin(lead time.Duration, started func(*record.Recorder)) {
	wall, now := time.Now(), Now()
	if !r.at.IsZero() {
		lead = max(lead, r.at.Sub(wall))
	}
	r.start = now + lead
	if r.dur > 0 {
		r.end = r.start + r.dur
	}
	r.rec.SetStart(wall.Add(lead))
	r.rec.Start()
	if started != nil {
		started(r.rec)
	}
	go r.watch()
}

// halt stops sending; requests in flight finish.
func (r *runner) halt() {
	r.stopOnce.Do(func() {
		r.stopped.Store(true)
		close(r.stopc)
	})
}

// run drives model until the phase ends and returns its result.
func (r *runner) run(model Model, started func(*record.Recorder)) *record.Result {
	switch m := model.(type) {
	case Open:
		r.open(m, started)
	case Closed, Ramp:
		if r.eng != nil {
			r.eng.run(r, m, func() { r.begin(startLead, started) })
			break
		}
		r.begin(0, started)
		r.sleepUntil(r.start)
		r.ramp(rampOf(m))
	}
	r.wg.Wait()
	return r.result()
}

// result ends the phase, once its workers are done, and returns what it
// measured.
func (r *runner) result() *record.Result {
	r.halt()
	res := r.rec.Stop()
	res.Unsent = r.unsent.Load()
	return res
}

// watch stops the phase at its deadline or when the caller's context ends.
func (r *runner) watch() {
	var deadline <-chan time.Time
	if r.end > 0 {
		t := time.NewTimer(r.end - Now())
		defer t.Stop()
		deadline = t.C
	}
	select {
	case <-r.ctx.Done():
	case <-deadline:
	case <-r.stopc:
	}
	r.halt()
}

// iterate runs one iteration's steps for worker; the first is due at due.
// s is the worker's own sample, reused so that a request allocates nothing.
func (r *runner) iterate(sess Session, s *record.Sample, worker, iter, seq int64, due time.Duration) {
	for step := 0; step < r.nsteps; step++ {
		// An iteration that started runs to its end, so that a scenario's
		// steps stay paired (no create without its delete), unless the
		// user interrupted.
		if step > 0 && r.ctx.Err() != nil {
			return
		}
		*s = record.Sample{Intended: due, Step: step}
		req, err := r.cfg.Source.Request(step, r.vars(worker, iter, seq))
		r.rec.Sent()
		if err != nil {
			now := Now()
			s.Sent, s.Done, s.Error, s.Err = now, now, record.Other, err
		} else {
			sess.Do(r.reqCtx, req, s)
		}
		due = s.Done
		s.Intended -= r.start
		s.Sent -= r.start
		s.Done -= r.start
		r.rec.Record(int(worker), s)
	}
}

// vars returns the Vars of the iteration iter of worker, seq of the
// phase: a shard's worker and seq are its own, the source sees their
// indices in the whole load.
func (r *runner) vars(worker, iter, seq int64) Vars {
	sh := r.cfg.Shard
	return Vars{Worker: sh.whole(worker), Iter: iter, Seq: sh.whole(seq)}
}

// worker runs closed-loop iterations until the phase stops.
func (r *runner) worker(id int64) {
	defer r.wg.Done()
	sess := r.tr.Session()
	defer sess.Close()
	s := new(record.Sample)
	for iter := int64(0); !r.stopped.Load(); iter++ {
		seq := r.seq.n.Add(1) - 1
		if r.limit > 0 && seq >= r.limit {
			r.halt()
			return
		}
		now := Now()
		if r.end > 0 && now >= r.end {
			r.halt()
			return
		}
		r.iterate(sess, s, id, iter, seq, now)
	}
}

// ramp starts closed-loop workers, m.Burst at a time every m.Every. A
// shard starts its share of the workers each burst has started in all,
// so that the shards' workers together ramp as m.
func (r *runner) ramp(m Ramp) {
	var t *time.Timer
	n := 0
	for step := 0; ; step++ {
		all := m.started(step)
		for ; int64(n) < r.cfg.Shard.Share(int64(all)); n++ {
			r.wg.Add(1)
			go r.worker(int64(n))
		}
		if all >= m.Workers {
			return
		}
		if t == nil {
			t = time.NewTimer(m.Every)
			defer t.Stop()
		} else {
			t.Reset(m.Every)
		}
		select {
		case <-t.C:
		case <-r.stopc:
			return
		}
	}
}

// job is one open-loop iteration handed to a worker.
type job struct {
	seq int64
	due time.Duration
}

// open dispatches iterations on m's schedule to a pool of workers that
// grows on demand up to m.MaxInFlight.
func (r *runner) open(m Open, started func(*record.Recorder)) {
	if r.eng != nil {
		r.eng.run(r, m, func() { r.begin(startLead, started) })
		return
	}
	// The warm-up and the measured phase each run the schedule from its
	// start: a Poisson schedule read by the warm-up is past it.
	if p, ok := fork(m.Pacer); ok {
		m.Pacer = p
	}
	limit := m.MaxInFlight
	if limit == 0 {
		limit = DefaultMaxInFlight
	}
	jobs := make(chan job)
	defer close(jobs)
	// The schedule sleeps on a thread of its own, while another P runs the
	// workers: with one P it could only sleep on the runtime's timers,
	// which wake it up to a millisecond late (gRPC at 1,000/s on one CPU:
	// lag p50 500 µs, and 40 µs with a second P, the kernel sharing the
	// CPU between the two threads).
	defer secondP()()
	r.nap = runtime.GOMAXPROCS(0) > 1
	if r.nap {
		defer precise()()
	}
	r.begin(startLead, started)
	spawned := 0
	for i := int64(0); r.limit <= 0 || i < r.limit; i++ {
		off, ok := m.Pacer.Due(i)
		if !ok {
			return
		}
		due := r.start + off
		if r.end > 0 && due >= r.end {
			return
		}
		if !r.sleepUntil(due) {
			r.countUnsent(m.Pacer, i)
			return
		}
		j := job{seq: i, due: due}
		select {
		case jobs <- j: // an idle worker took it
			// Let it run here and now: otherwise it waits for another
			// thread to wake, which is lag the target never caused.
			runtime.Gosched()
			continue
		default:
		}
		if spawned < limit {
			r.wg.Add(1)
			go r.openWorker(int64(spawned), jobs, j)
			spawned++
			continue
		}
		// Every worker is busy: wait for one. The wait is lag, recorded.
		select {
		case jobs <- j:
		case <-r.stopc:
			r.countUnsent(m.Pacer, i)
			return
		}
	}
}

// countUnsent counts the requests from i on that were due before the end of
// a phase that ran out of time with them still waiting, so that a held-back
// schedule shows in the result instead of shrinking silently. An interrupt
// is the user's choice and counts nothing.
func (r *runner) countUnsent(p Pacer, i int64) {
	if !r.timedOut() {
		return
	}
	for ; r.limit <= 0 || i < r.limit; i++ {
		off, ok := p.Due(i)
		if !ok || r.start+off >= r.end {
			return
		}
		r.unsent.Add(1)
	}
}

// timedOut reports whether the phase stopped at its deadline rather than
// at the user's interrupt: only then do requests left unsent count.
func (r *runner) timedOut() bool {
	return r.end > 0 && r.ctx.Err() == nil
}

func (r *runner) openWorker(id int64, jobs <-chan job, first job) {
	defer r.wg.Done()
	sess := r.tr.Session()
	defer sess.Close()
	s := new(record.Sample)
	r.iterate(sess, s, id, 0, first.seq, first.due)
	for iter := int64(1); ; iter++ {
		j, ok := <-jobs
		if !ok {
			return
		}
		if r.stopped.Load() {
			// The phase ended between the hand-off and now. The request was
			// due before the end and will not be sent: it counts as unsent,
			// never lost. The dispatcher closes jobs once it returns.
			if r.timedOut() {
				r.unsent.Add(1)
			}
			continue
		}
		r.iterate(sess, s, id, iter, j.seq, j.due)
	}
}

// sleepUntil waits until t on the package clock, and reports false if the
// phase stopped first. Long waits sleep on a timer that a stop interrupts;
// the last stretch sleeps on the thread precise() prepared.
func (r *runner) sleepUntil(t time.Duration) bool {
	for {
		if r.stopped.Load() {
			return false
		}
		d := t - Now()
		switch {
		case d <= 0:
			return true
		case d > 20*time.Millisecond:
			tm := time.NewTimer(d - 10*time.Millisecond)
			select {
			case <-tm.C:
			case <-r.stopc:
				tm.Stop()
				return false
			}
		case d > 2*time.Microsecond && r.nap:
			nap(int64(d))
		case d > 2*time.Microsecond && !r.nap:
			// With one P, a nap on this thread would hold it and starve
			// the workers for the whole gap: sleep on a runtime timer,
			// which gives the P away, at the cost of waking up to a
			// millisecond late (counted as lag).
			time.Sleep(d)
		default:
			runtime.Gosched()
		}
	}
}

// procs counts the open loops that raised GOMAXPROCS to 2 and run, so the
// last one to end puts back what it found.
var procs struct {
	sync.Mutex
	n, old int
}

// secondP makes sure the Go scheduler runs goroutines on at least two
// threads while an open loop on goroutines runs, and returns the func that
// undoes it. GOMAXPROCS of 1 (one CPU, or a taskset of one) is raised to 2.
func secondP() func() {
	procs.Lock()
	defer procs.Unlock()
	if procs.n == 0 {
		procs.old = runtime.GOMAXPROCS(0)
		if procs.old >= 2 {
			return func() {}
		}
		runtime.GOMAXPROCS(2)
	}
	procs.n++
	return func() {
		procs.Lock()
		defer procs.Unlock()
		if procs.n--; procs.n == 0 {
			runtime.GOMAXPROCS(procs.old)
		}
	}
}
