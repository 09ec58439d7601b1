package analysis

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// defaultSamplePoints is DetailOptions.MaxSamplePoints when it is 0.
const defaultSamplePoints = 2000

// DetailOptions choose what LoadDetail reads. The zero value reads every
// run with 2000 sample points each.
type DetailOptions struct {
	// MaxSamplePoints is how many raw samples per run are kept for the
	// plots against request number, evenly thinned; 0 means 2000.
	MaxSamplePoints int
	// Runs chooses the runs to load details for; nil loads all.
	Runs func(Run) bool
}

// A RunDetail is one run's series, for plots.
type RunDetail struct {
	Run
	// Intervals are the warm-up's then the measurement's, in time order.
	Intervals []IntervalPoint
	// Samples are service time (Y, seconds, Done − Sent) against request
	// number (X, from 0) over the measurement's stored raw samples, evenly
	// thinned to at most MaxSamplePoints, the first and last request among
	// them. Failed requests are included, as the histograms include them.
	// Empty when the run stored no raw samples (it does only when asked).
	Samples []Point
	// LagSamples are the generator's lag (Y, seconds, Sent − Intended) of
	// the same requests as Samples, at the same request numbers.
	LagSamples []Point
	// Trend is the target's: FitTrend of ServiceTime over all the stored
	// raw samples, the fit the trend flag is judged on; TrendOK is false
	// when there are too few of them for one (or none).
	Trend   Trend
	TrendOK bool
	// LagTrend is the generator's: FitTrend of Lag over the same samples,
	// shown apart, since a generator that falls further behind says
	// nothing of the target; LagTrendOK is TrendOK.
	LagTrend   Trend
	LagTrendOK bool
	Probes     []store.ProbePoint
	Steps      []record.StepStats // per scenario step; nil for single-step runs
	// Profiles are the pprof profiles taken during the run; each carries
	// its top functions.
	Profiles []store.Profile
	// Shards are the generators of a sharded run, each with its own
	// result; none for a run one generator sent.
	Shards []store.Shard
	// Damaged names the rows of the run's detail that do not decode and
	// are left out of it: its intervals, probes, steps or shards.
	Damaged []store.DamagedRow
}

// An IntervalPoint is one interval of a run's series. Latencies are
// seconds and NaN where n/a: when the interval has no samples, or, for a
// quantile q, fewer than 1/(1−q) of them (p99 needs 100).
type IntervalPoint struct {
	Start, End         time.Duration // from the run's origin; negative in warm-up
	Warmup             bool
	P50, P90, P99, Max float64
	Completed, Errors  int64   // Errors: requests that ended without a response
	Unsuccessful       int64   // responses whose code is not a success
	Throughput         float64 // completed per second over the interval
	// Failed is Errors and Unsuccessful per second over the interval; NaN
	// for an interval of no length.
	Failed float64
	// Short marks an interval cut short at a phase's start or end, under
	// half as long as the run's median interval: it holds a few requests
	// over a few milliseconds, and a rate over it means nothing.
	Short        bool
	InFlightMean float64
	InFlightMax  int64
}

// LoadDetail reads the series of exp's runs that opt.Runs chooses, in
// exp.Runs order: intervals of warm-up and measurement, thinned raw
// samples with the target's and the generator's trends, probes, scenario
// steps and profiles. It reads stored histograms, and walks raw samples
// without holding them: a run of a million samples needs no more than
// about 100,000 service times and as many lags in memory.
// Several runs are read at once.
func LoadDetail(ctx context.Context, db *store.DB, exp *Experiment, opt DetailOptions) ([]RunDetail, error) {
	if opt.MaxSamplePoints <= 0 {
		opt.MaxSamplePoints = defaultSamplePoints
	}
	var runs []Run
	for _, r := range exp.Runs {
		if opt.Runs == nil || opt.Runs(r) {
			runs = append(runs, r)
		}
	}
	out := make([]RunDetail, len(runs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error // the first run to fail; the others then stop
	)
	// A few runs at once: SQLite's reads scale across connections, and
	// each run holds at most about a megabyte while it is read.
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(len(runs), max(1, runtime.GOMAXPROCS(0)/2), 4) {
		wg.Go(func() {
			for i := range work {
				var err error
				if out[i], err = loadRunDetail(ctx, db, runs[i], opt.MaxSamplePoints); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("loading details of run %d (%s): %w", runs[i].ID, runs[i].Trial, err)
					}
					mu.Unlock()
					cancel()
				}
			}
		})
	}
	for i := range runs {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// markShort marks the intervals under half as long as their median
// Short.
func markShort(ivs []IntervalPoint) {
	lengths := make([]float64, len(ivs))
	for i, in := range ivs {
		lengths[i] = (in.End - in.Start).Seconds()
	}
	short := Median(lengths) / 2
	for i := range ivs {
		ivs[i].Short = lengths[i] < short
	}
}

// loadRunDetail reads the details of one run.
func loadRunDetail(ctx context.Context, db *store.DB, r Run, maxPoints int) (RunDetail, error) {
	d := RunDetail{Run: r}
	// keep keeps what a read returned beside the damaged rows it skipped,
	// naming them; any other error ends the run's detail.
	keep := func(err error) error {
		rows, ok := store.DamagedRows(err)
		if !ok {
			return err
		}
		d.Damaged = append(d.Damaged, rows...)
		return nil
	}
	sr, err := db.Run(ctx, r.ID)
	if err := keep(err); err != nil {
		return d, err
	}
	for _, phase := range []store.Phase{store.Warmup, store.Measure} {
		ivs, err := db.Intervals(ctx, r.ID, phase)
		if err != nil {
			return d, err
		}
		for i, in := range ivs {
			p, err := intervalPoint(in, phase == store.Warmup)
			if err != nil {
				d.Damaged = append(d.Damaged, store.DamagedRow{Table: "intervals", RunID: r.ID,
					Row: fmt.Sprintf("run %d, %s interval %d", r.ID, phase, i), Err: err})
				continue
			}
			d.Intervals = append(d.Intervals, p)
		}
	}
	markShort(d.Intervals)
	if sr.Samples > 0 {
		if err := d.readSamples(ctx, db, int(sr.Samples), maxPoints); err != nil {
			return d, err
		}
	}
	if d.Probes, err = db.Probes(ctx, r.ID); keep(err) != nil {
		return d, err
	}
	if d.Steps, err = db.Steps(ctx, r.ID); keep(err) != nil {
		return d, err
	}
	if d.Profiles, err = db.Profiles(ctx, r.ID); err != nil {
		return d, err
	}
	if d.Shards, err = db.Shards(ctx, r.ID); keep(err) != nil {
		return d, err
	}
	return d, nil
}

// readSamples walks the run's n raw samples once, keeping maxPoints of
// them evenly spread and feeding all of them to the trend fits of service
// time and lag.
func (d *RunDetail) readSamples(ctx context.Context, db *store.DB, n, maxPoints int) error {
	service, lag := NewTrendFitter(n, ServiceTime), NewTrendFitter(n, Lag)
	pick := newThinning(n, maxPoints)
	d.Samples = make([]Point, 0, min(n, maxPoints))
	d.LagSamples = make([]Point, 0, min(n, maxPoints))
	i := 0
	// Only service time and lag are read: the walk over millions of
	// samples is most of what a report takes, and two columns a row are
	// several times faster than whole samples. The fits read nothing else.
	err := db.Timings(ctx, d.ID, func(st, lg time.Duration) error {
		if pick.keep(i) {
			d.Samples = append(d.Samples, Point{X: float64(i), Y: st.Seconds()})
			d.LagSamples = append(d.LagSamples, Point{X: float64(i), Y: lg.Seconds()})
		}
		r := record.Raw{Sent: lg, Done: lg + st}
		service.Add(r)
		lag.Add(r)
		i++
		return nil
	})
	if err != nil {
		return err
	}
	if i != n {
		return fmt.Errorf("run %d: %d raw samples stored, %d read", d.ID, n, i)
	}
	d.Trend, d.TrendOK = service.Fit()
	d.LagTrend, d.LagTrendOK = lag.Fit()
	return nil
}

// thinning picks at most m of n indices, evenly spread, 0 and n−1 among
// them: index ⌊k(n−1)/(m−1)⌋ for k = 0…m−1, all of them when n ≤ m.
type thinning struct {
	n, m int
	k    int // the next pick
	next int // its index
}

func newThinning(n, m int) *thinning {
	t := &thinning{n: n, m: m}
	if m >= n {
		t.m = n
	}
	return t
}

// keep reports whether index i, the next in order, is picked.
func (t *thinning) keep(i int) bool {
	if t.k >= t.m || i != t.next {
		return false
	}
	t.k++
	if t.m > 1 {
		t.next = int(int64(t.k) * int64(t.n-1) / int64(t.m-1))
	}
	return true
}

// intervalPoint reduces a stored interval to what a plot needs. It fails
// only on a latency histogram that does not decode.
func intervalPoint(in record.Interval, warmup bool) (IntervalPoint, error) {
	p := IntervalPoint{
		Start: in.Start, End: in.End, Warmup: warmup,
		P50: math.NaN(), P90: math.NaN(), P99: math.NaN(), Max: math.NaN(),
		Completed: in.Completed, Errors: in.Errors, Unsuccessful: in.Unsuccessful,
		InFlightMean: in.InFlightMean, InFlightMax: in.InFlightMax,
	}
	p.Failed = math.NaN()
	if d := (in.End - in.Start).Seconds(); d > 0 {
		p.Throughput = float64(in.Completed) / d
		p.Failed = float64(in.Errors+in.Unsuccessful) / d
	}
	h, err := in.Latency.Histogram()
	if err != nil {
		return p, fmt.Errorf("latency: %w", err)
	}
	if h.TotalCount() > 0 {
		for _, q := range []struct {
			dst *float64
			q   float64
		}{{&p.P50, 0.5}, {&p.P90, 0.9}, {&p.P99, 0.99}} {
			if v, ok := record.Quantile(h, q.q); ok {
				*q.dst = v.Seconds()
			}
		}
		p.Max = time.Duration(h.Max()).Seconds()
	}
	return p, nil
}
