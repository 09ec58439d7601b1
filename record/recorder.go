package record

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Config says how a Recorder slices a run. The zero value records 1 s
// intervals, one step and counts every code below 400 as success.
type Config struct {
	Interval time.Duration // length of one interval of the series; 0 means 1 s
	Steps    []string      // scenario step names; empty for a single request kind
	Success  *CodeSet      // codes that count as success; nil means below 400
	// SampleEvery is how often the recorder checks whether an interval
	// ended; 0 means 10 ms.
	SampleEvery time.Duration
	// KeepRaw is how many requests to keep raw (Result.Raw), first come
	// first kept; 0 keeps none.
	KeepRaw int64
}

// A Recorder folds samples from many goroutines into one run's Result.
type Recorder struct {
	start   time.Time
	cfg     Config
	success CodeSet
	shards  []shard

	sent     atomic.Int64
	retries  atomic.Int64
	kept     atomic.Int64 // raw samples kept so far, against cfg.KeepRaw
	inflight atomic.Int64
	maxIn    atomic.Int64 // peak in flight in the current interval

	connMu   sync.Mutex // guards the rare records: connections and error examples
	connect  *hdr.Histogram
	tls      *hdr.Histogram
	examples map[string]string

	mu   sync.Mutex // guards what follows, shared with Snapshot
	res  *Result
	ival *counters // aggregate of the interval being closed
	// spare is the one set of counters not in a shard's hands: closing an
	// interval gives it to the first shard for the next interval and takes
	// that shard's, which, folded and reset, goes to the next shard, and so
	// on. One spare for all shards rather than one each: every set is three
	// dense histograms of 240 KB.
	spare    *counters
	packer   packer
	ivStart  time.Duration
	lastSent int64

	stop chan struct{}
	done chan struct{}

	// clock, when set, reads the time since the start in place of the
	// monotonic clock, so that a test can replay a run at its own pace.
	clock func() time.Duration
}

// shard is the part of the recorder one group of workers writes to.
type shard struct {
	mu    sync.Mutex
	cur   *counters
	steps []stepCounters
	raw   rawBuf
	busy  busyTime
	// wait and read hold the whole run's breakdown of service time, not
	// sliced by interval: per request they cost a record each, never a
	// merge. gaps, a server stream's times between replies, is made by
	// the first stream that has one.
	wait, read, gaps *hdr.Histogram
	_                [64]byte // keep shards on separate cache lines
}

// counters is what one interval collects.
type counters struct {
	latency, service, lag *hdr.Histogram
	completed, errors     int64
	unsuccessful          int64
	bytesIn, bytesOut     int64
	msgsOut, msgsIn       int64
	codes                 map[int]int64
	classes               [numClasses]int64
	firstIntended         time.Duration
	lastSent              time.Duration
	lastDone              time.Duration
	any                   bool
}

type stepCounters struct {
	latency, service *hdr.Histogram
	completed        int64
	errors           int64
	unsuccessful     int64
	codes            map[int]int64
	classes          [numClasses]int64
}

func newCounters() *counters {
	return &counters{latency: NewHistogram(), service: NewHistogram(), lag: NewHistogram(), codes: map[int]int64{}}
}

func (c *counters) reset() {
	c.latency.Reset()
	c.service.Reset()
	c.lag.Reset()
	c.completed, c.errors, c.unsuccessful, c.bytesIn, c.bytesOut = 0, 0, 0, 0, 0
	c.msgsOut, c.msgsIn = 0, 0
	clear(c.codes)
	c.classes = [numClasses]int64{}
	c.firstIntended, c.lastSent, c.lastDone, c.any = 0, 0, 0, false
}

// add folds o into c.
func (c *counters) add(o *counters) {
	c.latency.Merge(o.latency)
	c.service.Merge(o.service)
	c.lag.Merge(o.lag)
	c.completed += o.completed
	c.errors += o.errors
	c.unsuccessful += o.unsuccessful
	c.bytesIn += o.bytesIn
	c.bytesOut += o.bytesOut
	c.msgsOut += o.msgsOut
	c.msgsIn += o.msgsIn
	for k, v := range o.codes {
		c.codes[k] += v
	}
	for i, v := range o.classes {
		c.classes[i] += v
	}
	if o.any {
		if !c.any || o.firstIntended < c.firstIntended {
			c.firstIntended = o.firstIntended
		}
		c.lastSent = max(c.lastSent, o.lastSent)
		c.lastDone = max(c.lastDone, o.lastDone)
		c.any = true
	}
}

// NewRecorder returns a Recorder for a run that started at start.
func NewRecorder(start time.Time, cfg Config) *Recorder {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.SampleEvery <= 0 {
		cfg.SampleEvery = 10 * time.Millisecond
	}
	if cfg.SampleEvery > cfg.Interval {
		cfg.SampleEvery = cfg.Interval
	}
	r := &Recorder{start: start, cfg: cfg, connect: NewHistogram(), tls: NewHistogram()}
	if cfg.Success != nil {
		r.success = *cfg.Success
	} else {
		r.success = DefaultSuccess()
	}
	n := 1
	for n < 2*runtime.GOMAXPROCS(0) && n < 16 {
		n *= 2
	}
	r.shards = make([]shard, n)
	for i := range r.shards {
		s := &r.shards[i]
		s.cur = newCounters()
		s.wait, s.read = NewHistogram(), NewHistogram()
		if len(cfg.Steps) > 1 {
			s.steps = make([]stepCounters, len(cfg.Steps))
			for j := range s.steps {
				s.steps[j] = stepCounters{latency: NewHistogram(), service: NewHistogram(), codes: map[int]int64{}}
			}
		}
	}
	r.ival, r.spare = newCounters(), newCounters()
	r.res = &Result{
		Start:    start,
		Interval: cfg.Interval,
		Steps:    cfg.Steps,
		Latency:  NewHistogram(),
		Service:  NewHistogram(),
		Lag:      NewHistogram(),
		Codes:    map[int]int64{},
		Errors:   map[string]int64{},
	}
	return r
}

// Since returns the offset of now from the run's start on the monotonic
// clock: the time base of every Sample.
func (r *Recorder) Since() time.Duration {
	if r.clock != nil {
		return r.clock()
	}
	return time.Since(r.start)
}

// SetStart moves the run's start to start, which may be ahead of now: a
// generator builds its recorder first and fixes the start once everything
// it sets up is ready, so that none of that set-up delays the first
// request. Call it before Start and before any sample.
func (r *Recorder) SetStart(start time.Time) {
	r.start = start
	r.res.Start = start
}

// Start begins closing intervals and sampling in-flight in the background.
func (r *Recorder) Start() {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go r.loop()
}

func (r *Recorder) loop() {
	defer close(r.done)
	t := time.NewTicker(r.cfg.SampleEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			now := r.Since()
			r.mu.Lock()
			for now >= r.ivStart+r.cfg.Interval {
				r.closeInterval(r.ivStart + r.cfg.Interval)
			}
			r.mu.Unlock()
		}
	}
}

// Sent counts a request whose first byte is about to be written. Every Sent
// must be followed by one Record for the same request.
func (r *Recorder) Sent() {
	r.sent.Add(1)
	n := r.inflight.Add(1)
	for {
		m := r.maxIn.Load()
		if n <= m || r.maxIn.CompareAndSwap(m, n) {
			return
		}
	}
}

// Connected counts a connection opened during the load ahead of the
// requests it will carry, which took connect to open: the connections
// requests opened for themselves count with them (Record).
func (r *Recorder) Connected(connect time.Duration) {
	r.connMu.Lock()
	recordDuration(r.connect, connect)
	r.connMu.Unlock()
}

// Record adds one finished request. worker picks the shard; any stable
// per-goroutine number will do.
func (r *Recorder) Record(worker int, s *Sample) {
	r.inflight.Add(-1)
	if s.Retries > 0 {
		r.retries.Add(int64(s.Retries))
	}
	if s.Err != nil {
		r.example(s)
	}
	if s.Connect > 0 || s.TLS > 0 {
		r.connMu.Lock()
		if s.Connect > 0 {
			recordDuration(r.connect, s.Connect)
		}
		if s.TLS > 0 {
			recordDuration(r.tls, s.TLS)
		}
		r.connMu.Unlock()
	}
	keep := r.cfg.KeepRaw > 0 && r.kept.Load() < r.cfg.KeepRaw
	sh := &r.shards[worker&(len(r.shards)-1)]
	sh.mu.Lock()
	c := sh.cur
	recordDuration(c.latency, s.Done-s.Intended)
	recordDuration(c.service, s.Done-s.Sent)
	recordDuration(c.lag, s.Sent-s.Intended)
	c.completed++
	c.bytesIn += s.BytesIn
	c.bytesOut += s.BytesOut
	c.msgsOut += int64(s.MsgsOut)
	c.msgsIn += int64(s.MsgsIn)
	r.tally(c.codes, &c.classes, &c.errors, &c.unsuccessful, s)
	if !c.any || s.Intended < c.firstIntended {
		c.firstIntended = s.Intended
	}
	c.lastSent = max(c.lastSent, s.Sent)
	c.lastDone = max(c.lastDone, s.Done)
	c.any = true
	sh.busy.add(s.Sent, s.Done, r.cfg.Interval)
	if s.Wait > 0 {
		recordDuration(sh.wait, s.Wait)
	}
	if s.Read > 0 {
		recordDuration(sh.read, s.Read)
	}
	if len(s.ReplyGaps) > 0 && sh.gaps == nil {
		sh.gaps = NewHistogram()
	}
	for _, d := range s.ReplyGaps {
		recordDuration(sh.gaps, d)
	}
	if keep && r.kept.Add(1) <= r.cfg.KeepRaw {
		sh.raw.add(s)
	}
	if sh.steps != nil && s.Step >= 0 && s.Step < len(sh.steps) {
		st := &sh.steps[s.Step]
		recordDuration(st.latency, s.Done-s.Intended)
		recordDuration(st.service, s.Done-s.Sent)
		st.completed++
		r.tally(st.codes, &st.classes, &st.errors, &st.unsuccessful, s)
	}
	sh.mu.Unlock()
}

// example keeps the first error of each class.
func (r *Recorder) example(s *Sample) {
	r.connMu.Lock()
	if r.examples == nil {
		r.examples = map[string]string{}
	}
	k := s.Error.String()
	if _, ok := r.examples[k]; !ok {
		r.examples[k] = s.Err.Error()
	}
	r.connMu.Unlock()
}

// tally counts s's outcome: an error by class, or a response by code.
func (r *Recorder) tally(codes map[int]int64, classes *[numClasses]int64, errs, unsuccessful *int64, s *Sample) {
	if s.Error != OK {
		*errs++
		classes[s.Error]++
		return
	}
	codes[s.Code]++
	if !r.success.Has(s.Code) {
		*unsuccessful++
	}
}

// closeInterval ends the interval at end. The caller holds r.mu.
func (r *Recorder) closeInterval(end time.Duration) {
	iv := r.ival
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		old := sh.cur
		sh.cur = r.spare
		sh.mu.Unlock()
		// The old counters are ours now: no worker can reach them until they
		// are handed to the next shard, which this goroutine does.
		iv.add(old)
		old.reset()
		r.spare = old
	}
	sent := r.sent.Load()
	in := Interval{
		Start:        r.ivStart,
		End:          end,
		Sent:         sent - r.lastSent,
		Completed:    iv.completed,
		Errors:       iv.errors,
		Unsuccessful: iv.unsuccessful,
		InFlightMax:  r.maxIn.Swap(r.inflight.Load()),
		Latency:      r.packer.keep(iv.latency),
		Service:      r.packer.keep(iv.service),
	}
	r.lastSent = sent
	r.res.addInterval(in, iv)
	r.ivStart = end
	iv.reset()
}

// Snapshot returns the run's totals so far, for live progress. It is safe to
// call while the run goes on.
func (r *Recorder) Snapshot() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := Progress{
		Elapsed:   r.Since(),
		Sent:      r.sent.Load(),
		Completed: r.res.Requests,
		Errors:    r.res.ErrorsTotal,
		Failed:    r.res.ErrorsTotal + r.res.Unsuccessful,
		InFlight:  r.inflight.Load(),
	}
	if n := len(r.res.Intervals); n > 0 {
		last := r.res.Intervals[n-1]
		if d := last.End - last.Start; d > 0 {
			p.Rate = float64(last.Sent) / d.Seconds()
		}
	}
	p.P99, p.P99OK = Quantile(r.res.Latency, 0.99)
	return p
}

// Progress is a run's state while it goes on.
type Progress struct {
	Elapsed   time.Duration
	Sent      int64
	Completed int64 // in closed intervals
	Errors    int64
	Failed    int64
	InFlight  int64
	Rate      float64 // sends per second in the last interval
	P99       time.Duration
	P99OK     bool
}

// Stop ends recording, closes the last partial interval and returns the
// run's Result. Call it after every Record has returned.
func (r *Recorder) Stop() *Result {
	if r.stop != nil {
		close(r.stop)
		<-r.done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.Since()
	for now >= r.ivStart+r.cfg.Interval {
		r.closeInterval(r.ivStart + r.cfg.Interval)
	}
	r.closeInterval(now)
	res := r.res
	r.inFlightMeans()
	res.Sent = r.sent.Load()
	res.Retries = r.retries.Load()
	// The first shard's histograms take the others' (emptied, so that a
	// second Stop counts nothing twice): every Record has returned.
	res.Wait, res.Read = r.shards[0].wait, r.shards[0].read
	for i := 1; i < len(r.shards); i++ {
		sh := &r.shards[i]
		sh.mu.Lock()
		res.Wait.Merge(sh.wait)
		res.Read.Merge(sh.read)
		sh.wait.Reset()
		sh.read.Reset()
		if sh.gaps != nil {
			if r.shards[0].gaps == nil {
				r.shards[0].gaps = NewHistogram()
			}
			r.shards[0].gaps.Merge(sh.gaps)
			sh.gaps = nil
		}
		sh.mu.Unlock()
	}
	res.ReplyGap = r.shards[0].gaps
	r.connMu.Lock()
	res.Connect, res.TLS = r.connect, r.tls
	res.ErrorExample = r.examples
	if r.cfg.KeepRaw > 0 {
		// Sized once: appending chunk by chunk would grow the slice by a
		// quarter at a time and allocate five times what it keeps.
		n := 0
		for i := range r.shards {
			n += r.shards[i].raw.len()
		}
		res.Raw = make([]Raw, 0, n)
		for i := range r.shards {
			res.Raw = r.shards[i].raw.appendTo(res.Raw)
		}
		slices.SortFunc(res.Raw, func(a, b Raw) int { return cmp.Compare(a.Intended, b.Intended) })
		res.RawDropped = res.Requests - int64(len(res.Raw))
	}
	r.connMu.Unlock()
	if len(r.cfg.Steps) > 1 {
		res.StepStats = make([]StepStats, len(r.cfg.Steps))
		for j, name := range r.cfg.Steps {
			st := StepStats{Name: name, Latency: NewHistogram(), Service: NewHistogram(), Codes: map[int]int64{}, Errors: map[string]int64{}}
			for i := range r.shards {
				sc := &r.shards[i].steps[j]
				st.Latency.Merge(sc.latency)
				st.Service.Merge(sc.service)
				st.Requests += sc.completed
				st.ErrorsTotal += sc.errors
				st.Unsuccessful += sc.unsuccessful
				addOutcomes(st.Codes, st.Errors, sc.codes, &sc.classes)
			}
			res.StepStats[j] = st
		}
	}
	return res
}
