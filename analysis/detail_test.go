package analysis

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// detailRun describes a synthetic run written through store for the detail
// and distribution tests.
type detailRun struct {
	trial    store.Trial
	flags    []store.Flag
	counts   []int                     // requests completing in each 1 s interval of the measurement
	warmup   []int                     // the same for the warm-up; nil for none
	latency  func(i int) time.Duration // service time of request i, at least 1 µs; nil: 1 ms
	lag      func(i int) time.Duration // of request i; nil: none, and a lag histogram of 1 µs each
	fail     func(i int) bool          // request i fails with a timeout; nil: none do
	raw      bool                      // store raw samples
	probes   []store.ProbePoint
	profiles []store.Profile
	steps    []string // scenario step names; requests take them in turn
}

// phaseResult builds by hand what a Recorder would have recorded of one
// phase starting at start: interval k spans [k s, k+1 s) and completes
// counts[k] requests, in flight k+½ on average and k+1 at most.
func (r detailRun) phaseResult(start time.Time, counts []int, raw bool) *record.Result {
	res := &record.Result{Start: start, Interval: time.Second, Mode: "open", TargetRate: r.trial.Rate,
		Concurrency: r.trial.Concurrency, Codes: map[int]int64{}, Errors: map[string]int64{},
		Latency: record.NewHistogram(), Service: record.NewHistogram(), Lag: record.NewHistogram()}
	for _, name := range r.steps {
		res.Steps = append(res.Steps, name)
		res.StepStats = append(res.StepStats, record.StepStats{Name: name, Codes: map[int]int64{},
			Errors: map[string]int64{}, Latency: record.NewHistogram(), Service: record.NewHistogram()})
	}
	i := 0
	for k, c := range counts {
		ks := time.Duration(k) * time.Second
		in := record.Interval{Start: ks, End: ks + time.Second, InFlightMean: float64(k) + 0.5,
			InFlightMax: int64(k + 1)}
		lat, svc := record.NewPacked(), record.NewPacked()
		for j := range c {
			d := time.Millisecond
			if r.latency != nil {
				d = r.latency(i)
			}
			at := ks + time.Duration(j)*time.Second/time.Duration(c)
			lag, lagRec := time.Duration(0), time.Microsecond
			if r.lag != nil {
				lag = r.lag(i)
				lagRec = lag
			}
			s := record.Raw{Intended: at, Sent: at + lag, Done: at + lag + d, Code: 200}
			if r.fail != nil && r.fail(i) {
				s.Code, s.Error = 0, record.Timeout
				in.Errors++
				res.ErrorsTotal++
				res.Errors[record.Timeout.String()]++
			} else {
				res.Codes[200]++
			}
			for _, h := range []interface{ RecordValue(int64) error }{lat, res.Latency} {
				_ = h.RecordValue(int64(lag + d))
			}
			for _, h := range []interface{ RecordValue(int64) error }{svc, res.Service} {
				_ = h.RecordValue(int64(d))
			}
			_ = res.Lag.RecordValue(int64(lagRec))
			if len(res.StepStats) > 0 {
				st := &res.StepStats[i%len(res.StepStats)]
				st.Requests++
				_ = st.Latency.RecordValue(int64(lag + d))
				_ = st.Service.RecordValue(int64(d))
			}
			if raw {
				res.Raw = append(res.Raw, s)
			}
			if i == 0 {
				res.FirstIntended = at
			}
			res.LastDone = max(res.LastDone, s.Done)
			in.Sent++
			in.Completed++
			i++
		}
		var err error
		if in.Latency, err = record.Keep(lat); err != nil {
			panic(err)
		}
		if in.Service, err = record.Keep(svc); err != nil {
			panic(err)
		}
		res.Intervals = append(res.Intervals, in)
	}
	res.Sent, res.Requests = int64(i), int64(i)
	return res
}

// write stores r in experiment expID and returns its run's ID.
func (r detailRun) write(t testing.TB, db *store.DB, expID int64, position int) int64 {
	t.Helper()
	origin := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	res := r.phaseResult(origin, r.counts, r.raw)
	var warm *record.Result
	if r.warmup != nil {
		warm = r.phaseResult(origin.Add(-time.Duration(len(r.warmup))*time.Second), r.warmup, false)
	}
	info := store.RunInfo{Trial: r.trial, Position: position, Status: store.Done, Flags: r.flags,
		StartedAt: origin, EndedAt: origin.Add(time.Minute)}
	id, err := db.WriteRun(context.Background(), expID, info, res, warm, r.probes, r.profiles)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// detailExperiment writes runs into a new database and loads them.
func detailExperiment(t testing.TB, runs ...detailRun) (*store.DB, *Experiment) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e, err := db.CreateExperiment(ctx, store.Experiment{Name: "detail", Spec: "name: detail\n"})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		r.write(t, db, e.ID, i)
	}
	exp, err := Load(ctx, db, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return db, exp
}

func TestLoadDetailIntervals(t *testing.T) {
	// Request i takes i+1 µs, so an interval's quantiles are known.
	r := detailRun{
		trial:   store.Trial{Variant: "plain", Level: record.Level{Rate: 100}},
		warmup:  []int{10, 0},
		counts:  []int{100, 0, 99, 9, 1},
		latency: func(i int) time.Duration { return time.Duration(i%1000+1) * time.Microsecond },
		fail:    func(i int) bool { return i%50 == 0 },
	}
	db, exp := detailExperiment(t, r)
	got, err := LoadDetail(context.Background(), db, exp, DetailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d runs; want 1", len(got))
	}
	nan := math.NaN()
	// HdrHistogram reads a value as the top of its bucket: below 1 ms a
	// bucket is 512 ns wide (1 µs lowest, 3 significant digits).
	top := func(n int) float64 { return time.Duration((n * 1000) | 511).Seconds() }
	s := time.Second
	want := []IntervalPoint{
		{Start: -2 * s, End: -1 * s, Warmup: true, P50: top(5), P90: top(9), P99: nan, Max: top(10),
			Completed: 10, Errors: 1, Failed: 1, Throughput: 10, InFlightMean: 0.5, InFlightMax: 1},
		{Start: -1 * s, End: 0, Warmup: true, P50: nan, P90: nan, P99: nan, Max: nan,
			InFlightMean: 1.5, InFlightMax: 2},
		{Start: 0, End: s, P50: top(50), P90: top(90), P99: top(99), Max: top(100),
			Completed: 100, Errors: 2, Failed: 2, Throughput: 100, InFlightMean: 0.5, InFlightMax: 1},
		{Start: s, End: 2 * s, P50: nan, P90: nan, P99: nan, Max: nan, InFlightMean: 1.5, InFlightMax: 2},
		// 99 samples: p99 needs 100.
		{Start: 2 * s, End: 3 * s, P50: top(150), P90: top(189), P99: nan, Max: top(199),
			Completed: 99, Errors: 2, Failed: 2, Throughput: 99, InFlightMean: 2.5, InFlightMax: 3},
		// 9 samples: p90 needs 10.
		{Start: 3 * s, End: 4 * s, P50: top(204), P90: nan, P99: nan, Max: top(208),
			Completed: 9, Errors: 1, Failed: 1, Throughput: 9, InFlightMean: 3.5, InFlightMax: 4},
		// 1 sample: p50 needs 2; the maximum is its value.
		{Start: 4 * s, End: 5 * s, P50: nan, P90: nan, P99: nan, Max: top(209),
			Completed: 1, Errors: 0, Failed: 0, Throughput: 1, InFlightMean: 4.5, InFlightMax: 5},
	}
	if diff := cmp.Diff(want, got[0].Intervals, nanEqual); diff != "" {
		t.Errorf("intervals (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got[0].Intervals); i++ {
		if a, b := got[0].Intervals[i-1], got[0].Intervals[i]; b.Start < a.End {
			t.Errorf("interval %d starts at %v, before %d ends at %v", i, b.Start, i-1, a.End)
		}
	}
	if d := got[0]; d.Samples != nil || d.LagSamples != nil || d.TrendOK || d.LagTrendOK || d.Steps != nil || d.Probes != nil || d.Profiles != nil {
		t.Errorf("a run without raw samples, steps, probes or profiles: got samples %d and %d, trends %v and %v, steps %v, probes %v, profiles %v",
			len(d.Samples), len(d.LagSamples), d.TrendOK, d.LagTrendOK, d.Steps, d.Probes, d.Profiles)
	}
}

// TestMarkShort marks the intervals under half the run's median length
// short: one cut at a phase's end, and one of no length, whose failure
// rate is NaN.
func TestMarkShort(t *testing.T) {
	in := func(from, to time.Duration) IntervalPoint {
		p, err := intervalPoint(record.Interval{Start: from, End: to, Errors: 1}, false)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ms := time.Millisecond
	// Lengths 1, 1, 1, 0.3, 0.6 and 0 s: the median 0.8 s, half of it 0.4 s.
	ivs := []IntervalPoint{in(0, 1000*ms), in(1000*ms, 2000*ms), in(2000*ms, 3000*ms), in(3000*ms, 3300*ms),
		in(3300*ms, 3900*ms), in(3900*ms, 3900*ms)}
	markShort(ivs)
	var short []int
	for i, iv := range ivs {
		if iv.Short {
			short = append(short, i)
		}
	}
	if want := []int{3, 5}; !slices.Equal(short, want) {
		t.Errorf("short intervals %v; want %v", short, want)
	}
	if got := ivs[4].Failed; math.Abs(got-1/0.6) > 1e-9 {
		t.Errorf("one failure in 0.6 s: %g per second; want %g", got, 1/0.6)
	}
	if got := ivs[5].Failed; !math.IsNaN(got) {
		t.Errorf("an interval of no length: %g failures per second; want NaN", got)
	}
}

// nanEqual compares float64s exactly, NaN equal to NaN.
var nanEqual = cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })

func TestLoadDetailSamples(t *testing.T) {
	runs := []detailRun{
		{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 100}}, counts: []int{5000, 5001}, latency: detailService, lag: detailLag, raw: true},
		{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 200}}, counts: []int{150}, latency: detailService, lag: detailLag, raw: true},
		{trial: store.Trial{Variant: "filter", Level: record.Level{Rate: 100}}, counts: []int{1000}, latency: detailService},
	}
	db, exp := detailExperiment(t, runs...)
	for _, tc := range []struct {
		name   string
		opt    DetailOptions
		ids    []int64 // of exp.Runs, by index
		points []int   // samples kept per run
	}{
		{"default", DetailOptions{}, []int64{0, 1, 2}, []int{2000, 150, 0}},
		{"thinned", DetailOptions{MaxSamplePoints: 100}, []int64{0, 1, 2}, []int{100, 100, 0}},
		{"one point", DetailOptions{MaxSamplePoints: 1}, []int64{0, 1, 2}, []int{1, 1, 0}},
		{"all kept", DetailOptions{MaxSamplePoints: 20000}, []int64{0, 1, 2}, []int{10001, 150, 0}},
		{"chosen runs", DetailOptions{Runs: func(r Run) bool { return r.Rate == 100 }}, []int64{0, 2}, []int{2000, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LoadDetail(context.Background(), db, exp, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var ids, wantIDs []int64
			var points []int
			for _, d := range got {
				ids, points = append(ids, d.ID), append(points, len(d.Samples))
			}
			for _, i := range tc.ids {
				wantIDs = append(wantIDs, exp.Runs[i].ID)
			}
			if diff := cmp.Diff([]any{wantIDs, tc.points}, []any{ids, points}); diff != "" {
				t.Fatalf("runs and points (-want +got):\n%s", diff)
			}
			for k, d := range got {
				n := 0
				for _, c := range runs[tc.ids[k]].counts {
					n += c
				}
				checkThinned(t, d, n)
			}
		})
	}
}

// detailService and detailLag are the service time and lag of request i
// in TestLoadDetailSamples: service time flat with a saw-tooth, lag rising
// by 1 µs every 100 requests, so that the two trends differ.
func detailService(i int) time.Duration { return time.Duration(1000+i%997) * time.Microsecond }
func detailLag(i int) time.Duration     { return time.Duration(i%13*10+i/100) * time.Microsecond }

// checkThinned checks d's samples: evenly spread over n requests, the
// first and the last among them, each with its own service time and lag,
// and trends that are FitTrend's of service time and of lag over all of
// them.
func checkThinned(t *testing.T, d RunDetail, n int) {
	t.Helper()
	if len(d.Samples) == 0 {
		if d.TrendOK || d.LagTrendOK || len(d.LagSamples) != 0 {
			t.Errorf("run %d: trends or lags without raw samples", d.ID)
		}
		return
	}
	m := len(d.Samples)
	if first, last := d.Samples[0].X, d.Samples[m-1].X; first != 0 || (m > 1 && last != float64(n-1)) {
		t.Errorf("run %d: samples from %v to %v; want 0 to %d", d.ID, first, last, n-1)
	}
	if m > 1 {
		step := float64(n-1) / float64(m-1)
		for i := 1; i < m; i++ {
			if gap := d.Samples[i].X - d.Samples[i-1].X; gap < math.Floor(step) || gap > math.Ceil(step) {
				t.Fatalf("run %d: gap %v between samples %d and %d; want %v evenly", d.ID, gap, i-1, i, step)
			}
		}
	}
	raw := make([]record.Raw, n)
	for i := range raw {
		at := time.Duration(i) * time.Millisecond // any intended time will do
		raw[i] = record.Raw{Intended: at, Sent: at + detailLag(i), Done: at + detailLag(i) + detailService(i)}
	}
	if len(d.LagSamples) != m {
		t.Fatalf("run %d: %d lags for %d samples", d.ID, len(d.LagSamples), m)
	}
	for k, p := range d.Samples {
		r := raw[int(p.X)]
		if want := (r.Done - r.Sent).Seconds(); p.Y != want {
			t.Fatalf("run %d: sample %v has service time %v; want %v", d.ID, p.X, p.Y, want)
		}
		if l := d.LagSamples[k]; l.X != p.X || l.Y != (r.Sent-r.Intended).Seconds() {
			t.Fatalf("run %d: lag %v at %v; want %v at %v", d.ID, l.Y, l.X, (r.Sent - r.Intended).Seconds(), p.X)
		}
	}
	for _, tc := range []struct {
		q  TrendQuantity
		tr Trend
		ok bool
	}{{ServiceTime, d.Trend, d.TrendOK}, {Lag, d.LagTrend, d.LagTrendOK}} {
		want, ok := FitTrend(raw, tc.q)
		if diff := cmp.Diff([]any{ok, want}, []any{tc.ok, tc.tr}); diff != "" {
			t.Errorf("run %d: trend of %s (-FitTrend +got):\n%s", d.ID, tc.q, diff)
		}
	}
	if d.TrendOK && (d.Trend.Rising(0.01) || !d.LagTrend.Rising(0.1)) {
		t.Errorf("run %d: service time flat, lag rising; got trends %+v and %+v", d.ID, d.Trend, d.LagTrend)
	}
}

func TestLoadDetailSides(t *testing.T) {
	origin := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	probes := []store.ProbePoint{
		{Probe: "process", Series: "cpu_percent", Labels: map[string]string{"pid": "42"}, Time: origin, Value: 30},
		{Probe: "process", Series: "cpu_percent", Labels: map[string]string{"pid": "42"}, Time: origin.Add(time.Second), Value: 40},
	}
	profiles := []store.Profile{{Target: "node-a", Kind: "cpu", TakenAt: origin, Duration: time.Second,
		Data: []byte{1, 2, 3}, Unit: "nanoseconds", Top: []store.ProfileFunc{{Function: "main.work", Flat: 10, Cum: 20}}}}
	r := detailRun{trial: store.Trial{Variant: "plain", Level: record.Level{Concurrency: 8}}, counts: []int{10},
		probes: probes, profiles: profiles, steps: []string{"login", "browse"}}
	db, exp := detailExperiment(t, r)
	got, err := LoadDetail(context.Background(), db, exp, DetailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := got[0]
	if diff := cmp.Diff(probes, d.Probes); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(profiles, d.Profiles); diff != "" {
		t.Errorf("profiles (-want +got):\n%s", diff)
	}
	var steps []string
	var reqs []int64
	for _, s := range d.Steps {
		steps, reqs = append(steps, s.Name), append(reqs, s.Requests)
	}
	if diff := cmp.Diff([]any{[]string{"login", "browse"}, []int64{5, 5}}, []any{steps, reqs}); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if d.Variant != "plain" || d.Concurrency != 8 || d.Requests != 10 {
		t.Errorf("run: %s with %d requests; want plain c=8 with 10", d.Trial, d.Requests)
	}
}

func TestLoadDetailCancelled(t *testing.T) {
	db, exp := detailExperiment(t, detailRun{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 1}}, counts: []int{300}, raw: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoadDetail(ctx, db, exp, DetailOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("LoadDetail with a cancelled context: error %v; want context.Canceled", err)
	}
}

func TestThinning(t *testing.T) {
	for _, tc := range []struct{ n, m int }{{0, 5}, {1, 5}, {5, 5}, {6, 5}, {10, 2}, {10, 1}, {1_000_003, 2000}, {7, 3}} {
		th := newThinning(tc.n, tc.m)
		var got []int
		for i := range tc.n {
			if th.keep(i) {
				got = append(got, i)
			}
		}
		want := min(tc.n, tc.m)
		if len(got) != want {
			t.Errorf("n %d, m %d: kept %d; want %d", tc.n, tc.m, len(got), want)
			continue
		}
		if want > 1 && (got[0] != 0 || got[want-1] != tc.n-1) {
			t.Errorf("n %d, m %d: kept %d to %d; want 0 to %d", tc.n, tc.m, got[0], got[want-1], tc.n-1)
		}
	}
}

// heapPeak samples the heap's live objects until stop is closed, and
// returns the largest reading.
func heapPeak(stop <-chan struct{}) func() uint64 {
	var peak uint64
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 { wg.Wait(); return peak }
}

// BenchmarkLoadDetail reads the details of one run of 1,000,000 raw
// samples (1000 intervals of 1000): the streaming path. peak-heap-B is the
// largest heap seen while it runs, garbage included.
func BenchmarkLoadDetail(b *testing.B) {
	counts := make([]int, 1000)
	for i := range counts {
		counts[i] = 1000
	}
	r := detailRun{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 1000}}, counts: counts, raw: true,
		latency: func(i int) time.Duration { return time.Duration(1000+i%997+i/10000) * time.Microsecond }}
	db, exp := detailExperiment(b, r)
	ctx := context.Background()
	runtime.GC()
	stop := make(chan struct{})
	peak := heapPeak(stop)
	b.ReportAllocs()
	for b.Loop() {
		d, err := LoadDetail(ctx, db, exp, DetailOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(d[0].Samples) != defaultSamplePoints || !d[0].TrendOK {
			b.Fatalf("%d samples, trend %v", len(d[0].Samples), d[0].TrendOK)
		}
	}
	close(stop)
	b.ReportMetric(float64(peak()), "peak-heap-B")
}
