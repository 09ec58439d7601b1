package record

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	gocmp "github.com/google/go-cmp/cmp"
)

// mergeSteps are the scenario steps of the runs merged here.
var mergeSteps = []string{"login", "get", "put"}

// stream returns n requests of an open-loop run from 100 ms on, with the
// spread of outcomes a run sees: latencies from tens of µs to a second,
// failed codes, errors of several classes, new connections, retries.
// Times are offsets from the run's start.
func stream(rng *rand.Rand, n int) []Sample {
	out := make([]Sample, n)
	at := 100 * time.Millisecond
	for i := range out {
		at += time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
		sent := at + time.Duration(rng.Int64N(int64(50*time.Microsecond)))
		if rng.IntN(50) == 0 { // a generator that fell behind
			sent += time.Duration(rng.Int64N(int64(20 * time.Millisecond)))
		}
		service := time.Duration(math.Exp(rng.NormFloat64()*1.5) * float64(2*time.Millisecond))
		s := Sample{Intended: at, Sent: sent, Done: sent + min(service, time.Second), Code: 200,
			BytesIn: 100 + rng.Int64N(1000), BytesOut: 50, Step: rng.IntN(len(mergeSteps))}
		switch rng.IntN(20) {
		case 0:
			s.Code = 503
		case 1:
			s.Code, s.Error, s.Err = 0, Reset, fmt.Errorf("connection reset (%d)", i)
		case 2:
			s.Code, s.Error, s.Err = 0, Timeout, fmt.Errorf("timeout (%d)", i)
		}
		if s.Error == OK {
			s.Wait, s.Read = (s.Done-s.Sent)*9/10, (s.Done-s.Sent)/10
		}
		if rng.IntN(30) == 0 {
			s.Connect, s.TLS = time.Duration(100+rng.IntN(900))*time.Microsecond, time.Millisecond
		}
		if rng.IntN(100) == 0 {
			s.Retries = 1
		}
		out[i] = s
	}
	return out
}

// replay records samples with a Recorder started at start, its clock
// offset after the one the samples' times are read on: each time moves
// back by offset. Each request is sent and recorded in the order of its
// send and completion among all the others', and each interval closes
// before the first of them past its end, as the recorder's own loop
// would close it when its clock passed; the run stops at end, on the
// samples' clock.
func replay(t testing.TB, start time.Time, offset, end time.Duration, cfg Config, samples []Sample) *Result {
	t.Helper()
	type event struct {
		at   time.Duration
		done bool
		i    int
	}
	events := make([]event, 0, 2*len(samples))
	for i, s := range samples {
		events = append(events, event{s.Sent - offset, false, i}, event{s.Done - offset, true, i})
	}
	slices.SortFunc(events, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(boolByte(a.done), boolByte(b.done)), cmp.Compare(a.i, b.i))
	})
	r := NewRecorder(start, cfg)
	r.clock = func() time.Duration { return end - offset }
	for _, e := range events {
		for e.at >= r.ivStart+r.cfg.Interval {
			endIntervalAt(r)
		}
		if !e.done {
			r.Sent()
			continue
		}
		s := samples[e.i]
		s.Intended -= offset
		s.Sent -= offset
		s.Done -= offset
		r.Record(e.i, &s)
	}
	return r.Stop()
}

// endIntervalAt closes r's current interval at its end.
func endIntervalAt(r *Recorder) {
	r.mu.Lock()
	r.closeInterval(r.ivStart + r.cfg.Interval)
	r.mu.Unlock()
}

// sharded is a run recorded twice: by one recorder, and split request i
// to shard i mod N over N recorders whose starts are offsets apart.
type sharded struct {
	one    *Result
	shards []*Result
}

// record replays samples through one recorder and through len(offsets)
// shards, shard s started offsets[s] after the one, all stopped at one
// instant, half an interval after the interval of the last completion.
func record(t testing.TB, cfg Config, samples []Sample, offsets []time.Duration) sharded {
	t.Helper()
	var last time.Duration
	for _, s := range samples {
		last = max(last, s.Done)
	}
	end := (last/cfg.Interval)*cfg.Interval + cfg.Interval + cfg.Interval/2
	start := time.Unix(1_700_000_000, 0)
	out := sharded{one: replay(t, start, 0, end, cfg, samples)}
	n := len(offsets)
	for s, d := range offsets {
		var mine []Sample
		for i := s; i < len(samples); i += n {
			mine = append(mine, samples[i])
		}
		out.shards = append(out.shards, replay(t, start.Add(d), d, end, cfg, mine))
	}
	return out
}

// checkWholeRun fails t unless merged holds the one recorder's figures of
// the whole run: histograms alike bucket by bucket, and the same counts.
func checkWholeRun(t *testing.T, merged, one *Result) {
	t.Helper()
	for j, name := range histogramNames {
		if d := CountsDiff(*merged.histograms()[j], *one.histograms()[j]); d != "" {
			t.Errorf("%s histogram, merged and one recorder's: %s", name, d)
		}
	}
	for j := range one.StepStats {
		m, o := merged.StepStats[j], one.StepStats[j]
		if d := CountsDiff(m.Latency, o.Latency) + CountsDiff(m.Service, o.Service); d != "" {
			t.Errorf("step %s histograms: %s", o.Name, d)
		}
		m.Latency, m.Service, o.Latency, o.Service = nil, nil, nil, nil
		if diff := gocmp.Diff(o, m); diff != "" {
			t.Errorf("step %s (-one +merged):\n%s", o.Name, diff)
		}
	}
	type totals struct {
		Sent, Retries, Requests, ErrorsTotal, Unsuccessful, BytesIn, BytesOut int64
		Codes                                                                 map[int]int64
		Errors                                                                map[string]int64
		FirstIntended, LastSent, LastDone                                     time.Duration
		Start                                                                 time.Time
	}
	get := func(r *Result) totals {
		return totals{r.Sent, r.Retries, r.Requests, r.ErrorsTotal, r.Unsuccessful, r.BytesIn, r.BytesOut,
			r.Codes, r.Errors, r.FirstIntended, r.LastSent, r.LastDone, r.Start}
	}
	if diff := gocmp.Diff(get(one), get(merged)); diff != "" {
		t.Errorf("totals (-one +merged):\n%s", diff)
	}
}

// checkIntervals fails t unless merged's intervals add up to the one
// recorder's; with aligned set, the shards started at one instant and
// every interval must hold what the one recorder's holds. Either way
// merged interval k must hold the sum of the shards' interval k.
func checkIntervals(t *testing.T, merged *Result, run sharded, aligned bool) {
	t.Helper()
	one := run.one
	if len(merged.Intervals) != len(one.Intervals) {
		t.Fatalf("%d intervals, one recorder's %d", len(merged.Intervals), len(one.Intervals))
	}
	var mTotal, oTotal [4]int64
	mLat, oLat := NewPacked(), NewPacked()
	for k := range one.Intervals {
		m, o := &merged.Intervals[k], &one.Intervals[k]
		mh, oh := keptHistograms(t, m), keptHistograms(t, o)
		mc := [4]int64{m.Sent, m.Completed, m.Errors, m.Unsuccessful}
		oc := [4]int64{o.Sent, o.Completed, o.Errors, o.Unsuccessful}
		for j := range mc {
			mTotal[j] += mc[j]
			oTotal[j] += oc[j]
		}
		mLat.Merge(mh[0])
		oLat.Merge(oh[0])
		var want [4]int64
		sum := [2]*hdr.PackedHistogram{NewPacked(), NewPacked()}
		for _, sh := range run.shards {
			if k >= len(sh.Intervals) { // stopped earlier on its own clock
				continue
			}
			in := &sh.Intervals[k]
			for j, v := range [4]int64{in.Sent, in.Completed, in.Errors, in.Unsuccessful} {
				want[j] += v
			}
			for j, h := range keptHistograms(t, in) {
				sum[j].Merge(h)
			}
		}
		if mc != want {
			t.Errorf("interval %d: sent, completed, errors, unsuccessful %v; the shards' sum %v", k, mc, want)
		}
		for j := range sum {
			if d := CountsDiff(mh[j], sum[j]); d != "" {
				t.Errorf("interval %d: histogram %d, merged and the shards' sum: %s", k, j, d)
			}
		}
		if !aligned {
			continue
		}
		if mc != oc {
			t.Errorf("interval %d: sent, completed, errors, unsuccessful %v, one recorder's %v", k, mc, oc)
		}
		for j := range mh {
			if d := CountsDiff(mh[j], oh[j]); d != "" {
				t.Errorf("interval %d: histogram %d, merged and one recorder's: %s", k, j, d)
			}
		}
		// Means in flight: the same, but for rounding.
		if math.Abs(m.InFlightMean-o.InFlightMean) > 1e-12*max(1, o.InFlightMean) {
			t.Errorf("interval %d: %g in flight, one recorder's %g", k, m.InFlightMean, o.InFlightMean)
		}
		if m.InFlightMax < o.InFlightMax {
			t.Errorf("interval %d: peak in flight %d below the one recorder's %d: not an upper bound", k, m.InFlightMax, o.InFlightMax)
		}
		if m.Start != o.Start || m.End != o.End {
			t.Errorf("interval %d: %s to %s, one recorder's %s to %s", k, m.Start, m.End, o.Start, o.End)
		}
	}
	if mTotal != oTotal {
		t.Errorf("intervals' sent, completed, errors, unsuccessful add up to %v, one recorder's to %v", mTotal, oTotal)
	}
	if d := CountsDiff(mLat, oLat); d != "" {
		t.Errorf("intervals' latency histograms add up otherwise than one recorder's: %s", d)
	}
	if merged.InFlightMax < one.InFlightMax {
		t.Errorf("peak in flight %d below the one recorder's %d: not an upper bound", merged.InFlightMax, one.InFlightMax)
	}
}

// keptHistograms decodes in's latency and service-time histograms.
func keptHistograms(t *testing.T, in *Interval) [2]*hdr.PackedHistogram {
	t.Helper()
	var out [2]*hdr.PackedHistogram
	for j, k := range []Kept{in.Latency, in.Service} {
		h, err := k.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		out[j] = h
	}
	return out
}

// sortedRaw returns raw in a total order, to compare as sets.
func sortedRaw(raw []Raw) []Raw {
	raw = slices.Clone(raw)
	slices.SortFunc(raw, func(a, b Raw) int {
		return cmp.Or(cmp.Compare(a.Intended, b.Intended), cmp.Compare(a.Sent, b.Sent), cmp.Compare(a.Done, b.Done),
			cmp.Compare(a.BytesIn, b.BytesIn), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Error, b.Error))
	})
	return raw
}

// offsets returns n shards' offsets: the first 0, the last (of two or
// more) spread, the others in between.
func offsets(rng *rand.Rand, n int, spread time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := 1; i < n; i++ {
		out[i] = time.Duration(rng.Int64N(int64(spread) + 1))
		if i == n-1 {
			out[i] = spread
		}
	}
	return out
}

// TestMergeEqualsOneRecorder splits a run's requests over N recorders,
// started up to a spread apart, and holds their merge to what one
// recorder of every request records: the whole run's histograms alike
// bucket by bucket and its counts equal at any spread, every interval
// alike when the shards started together, and the raw samples the same.
func TestMergeEqualsOneRecorder(t *testing.T) {
	tests := []struct {
		n      int
		spread time.Duration
	}{
		{1, 0}, {2, 0}, {3, 0}, {8, 0},
		{3, 5 * time.Microsecond}, {4, 2 * time.Millisecond}, {5, 100 * time.Millisecond}, {2, 999 * time.Millisecond},
	}
	samples := stream(rand.New(rand.NewPCG(7, 7)), 4000)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d,spread=%s", tt.n, tt.spread), func(t *testing.T) {
			cfg := Config{Interval: time.Second, Steps: mergeSteps, KeepRaw: 1 << 20}
			run := record(t, cfg, samples, offsets(rand.New(rand.NewPCG(uint64(tt.n), 1)), tt.n, tt.spread))
			merged, err := Merge(run.shards, MergeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkWholeRun(t, merged, run.one)
			checkIntervals(t, merged, run, tt.spread == 0)
			if diff := gocmp.Diff(sortedRaw(run.one.Raw), sortedRaw(merged.Raw)); diff != "" {
				t.Errorf("raw samples (-one +merged):\n%s", diff)
			}
			if !slices.IsSortedFunc(merged.Raw, func(a, b Raw) int { return cmp.Compare(a.Intended, b.Intended) }) {
				t.Error("merged raw samples not sorted by intended send")
			}
			if merged.RawDropped != 0 {
				t.Errorf("%d raw samples dropped, want 0", merged.RawDropped)
			}
		})
	}
}

// TestMergeRaw holds the raw samples kept to the cap, shared fairly: a
// shard that kept few gives all it has, the others even shares of the
// rest, each its first to complete, on the merged time base.
func TestMergeRaw(t *testing.T) {
	ms := time.Millisecond
	start := time.Unix(1_700_000_000, 0)
	// shard returns a shard's result that kept n samples raw, each
	// carrying the shard's number in its BytesIn, completing in the
	// reverse order of their intended sends.
	shard := func(num int, offset time.Duration, n int, dropped int64) *Result {
		r := &Result{Start: start.Add(offset), Interval: time.Second, Raw: []Raw{}, RawDropped: dropped}
		for i := range n {
			at := time.Duration(i) * ms
			r.Raw = append(r.Raw, Raw{Intended: at, Sent: at, Done: at + time.Duration(n-i)*10*ms, BytesIn: int64(num)})
		}
		return r
	}
	shards := []*Result{shard(0, 0, 1000, 4000), shard(1, 3*ms, 10, 0), shard(2, time.Microsecond, 1000, 0), shard(3, ms, 0, 0)}
	merged, err := Merge(shards, MergeOptions{KeepRaw: 511})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Raw) != 511 || merged.RawDropped != 4000+2010-511 {
		t.Fatalf("kept %d, dropped %d; want 511 and %d", len(merged.Raw), merged.RawDropped, 4000+2010-511)
	}
	// Shard 1 gives its 10, shards 0 and 2 share the 501 left: 251 and
	// 250, the last intended of each, which completed first.
	var from [4]int
	first := [4]time.Duration{749 * ms, 3 * ms, 750*ms + time.Microsecond}
	for _, s := range merged.Raw {
		from[s.BytesIn]++
		if s.Intended < first[s.BytesIn] {
			t.Errorf("shard %d kept %+v, intended before its first to complete", s.BytesIn, s)
		}
	}
	if from != [4]int{251, 10, 250, 0} {
		t.Errorf("kept %v from each shard; want [251 10 250 0]", from)
	}
	if !slices.IsSortedFunc(merged.Raw, func(a, b Raw) int { return cmp.Compare(a.Intended, b.Intended) }) {
		t.Error("raw samples not sorted by intended send")
	}
	// Uncapped, every sample stays, moved by its shard's offset.
	all, err := Merge(shards, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Raw) != 2010 || all.RawDropped != 4000 {
		t.Errorf("uncapped: kept %d, dropped %d; want 2010 and 4000", len(all.Raw), all.RawDropped)
	}
	if !slices.Contains(all.Raw, Raw{Intended: 3 * ms, Sent: 3 * ms, Done: 103 * ms, BytesIn: 1}) {
		t.Error("shard 1's first sample not moved by its offset of 3 ms")
	}
	// No shard kept any raw: none kept, none counted as dropped.
	none, err := Merge([]*Result{{Interval: time.Second}, {Interval: time.Second}}, MergeOptions{KeepRaw: 5})
	if err != nil || none.Raw != nil || none.RawDropped != 0 {
		t.Errorf("no raw samples: kept %v, dropped %d (%v); want nil, 0", none.Raw, none.RawDropped, err)
	}
}

func TestFairShares(t *testing.T) {
	tests := []struct {
		have []int64
		keep int64
		want []int64
	}{
		{[]int64{10, 10}, 10, []int64{5, 5}},
		{[]int64{10, 10, 10}, 10, []int64{4, 3, 3}},
		{[]int64{1, 100, 100}, 11, []int64{1, 5, 5}},
		{[]int64{100, 1, 100}, 12, []int64{6, 1, 5}},
		{[]int64{0, 3, 100, 7}, 20, []int64{0, 3, 10, 7}},
		{[]int64{5}, 3, []int64{3}},
		{[]int64{2, 2, 2, 9}, 1, []int64{1, 0, 0, 0}},
	}
	for _, tt := range tests {
		got := fairShares(tt.have, tt.keep)
		if !slices.Equal(got, tt.want) {
			t.Errorf("fairShares(%v, %d) = %v, want %v", tt.have, tt.keep, got, tt.want)
		}
	}
}

// TestMergeInFlight holds each interval's in-flight figures to the sums
// Merge states: means added (weighted by length where the shards' last
// intervals differ), peaks added as an upper bound.
func TestMergeInFlight(t *testing.T) {
	s := time.Second
	start := time.Unix(1_700_000_000, 0)
	a := &Result{Start: start, Interval: s, InFlightMax: 9, Intervals: []Interval{
		{Start: 0, End: s, InFlightMean: 1.5, InFlightMax: 4},
		{Start: s, End: 2 * s, InFlightMean: 2, InFlightMax: 9},
		{Start: 2 * s, End: 2*s + s/2, InFlightMean: 4, InFlightMax: 5}, // 2 s in flight over 0.5 s
	}}
	b := &Result{Start: start.Add(time.Millisecond), Interval: s, InFlightMax: 7, Intervals: []Interval{
		{Start: 0, End: s, InFlightMean: 0.25, InFlightMax: 7},
		{Start: s, End: 2 * s, InFlightMean: 3, InFlightMax: 3},
		{Start: 2 * s, End: 3 * s, InFlightMean: 1, InFlightMax: 2}, // 1 s in flight over 1 s
		{Start: 3 * s, End: 3*s + s/4, InFlightMean: 2, InFlightMax: 1},
	}}
	m, err := Merge([]*Result{a, b}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Interval{
		{Start: 0, End: s, InFlightMean: 1.75, InFlightMax: 11},
		{Start: s, End: 2 * s, InFlightMean: 5, InFlightMax: 12},
		{Start: 2 * s, End: 3 * s, InFlightMean: 3, InFlightMax: 7}, // 3 s in flight over 1 s
		{Start: 3 * s, End: 3*s + s/4, InFlightMean: 2, InFlightMax: 1},
	}
	for k := range m.Intervals {
		m.Intervals[k].Latency, m.Intervals[k].Service = Kept{}, Kept{}
	}
	if diff := gocmp.Diff(want, m.Intervals, gocmp.AllowUnexported(Kept{})); diff != "" {
		t.Errorf("intervals (-want +got):\n%s", diff)
	}
	if m.InFlightMax != 16 {
		t.Errorf("run's peak in flight %d, want 16, the sum of the shards'", m.InFlightMax)
	}
}

// TestMergeFigures checks the figures set by the generator and the
// whole run's offsets, moved onto the earliest start.
func TestMergeFigures(t *testing.T) {
	ms := time.Millisecond
	start := time.Unix(1_700_000_000, 0)
	a := &Result{Start: start.Add(2 * ms), Interval: time.Second, Mode: "open", TargetRate: 100, Concurrency: 10,
		WarmupRequests: 5, Pool: 3, HoldFrom: 0, ErrorExample: map[string]string{"reset": "a's reset"},
		FirstIntended: 10 * ms, LastSent: 900 * ms, LastDone: 950 * ms, seen: true}
	b := &Result{Start: start, Interval: time.Second, Mode: "open", TargetRate: 50.5, Concurrency: 5, Interrupted: true,
		WarmupRequests: 7, Pool: 4, ErrorExample: map[string]string{"reset": "b's reset", "timeout": "b's timeout"},
		FirstIntended: 11 * ms, LastSent: 901 * ms, LastDone: 951 * ms, seen: true}
	c := &Result{Start: start.Add(ms), Interval: time.Second, Mode: "open", FirstIntended: -time.Hour} // saw no request
	m, err := Merge([]*Result{a, b, c}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{Start: start, Interval: time.Second, Mode: "open", TargetRate: 150.5, Concurrency: 15, Interrupted: true,
		WarmupRequests: 12, Pool: 7, ErrorExample: map[string]string{"reset": "a's reset", "timeout": "b's timeout"},
		FirstIntended: 11 * ms, LastSent: 902 * ms, LastDone: 952 * ms, seen: true}
	if diff := gocmp.Diff(want, m, resultCmp); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	ramp := func(offset, hold time.Duration) *Result {
		return &Result{Start: start.Add(offset), Interval: time.Second, Mode: "ramp", HoldFrom: hold}
	}
	m, err = Merge([]*Result{ramp(0, 5*time.Second), ramp(ms, 5*time.Second), ramp(2*ms, 4*time.Second)}, MergeOptions{})
	if err != nil || m.HoldFrom != 5*time.Second+ms {
		t.Errorf("ramp held from %s (%v), want 5.001s: the latest, on the merged start", m.HoldFrom, err)
	}
}

// TestMergeOne holds one result's merge to a deep copy of it: equal in
// every field, sharing nothing with it.
func TestMergeOne(t *testing.T) {
	results := []*Result{recorded(t), {}}
	for seed := range uint64(5) {
		r := &Result{}
		fill(t, reflect.ValueOf(r).Elem(), rand.New(rand.NewPCG(seed, 3)), "Result")
		r.seen = true
		r.Interval = time.Second
		results = append(results, r)
	}
	for i, r := range results {
		pristine, _ := roundTrip(t, r)
		got, err := Merge([]*Result{r}, MergeOptions{})
		if err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
		if diff := gocmp.Diff(r, got, resultCmp); diff != "" {
			t.Fatalf("result %d: merge of one differs (-it +merged):\n%s", i, diff)
		}
		scribble(got)
		if diff := gocmp.Diff(pristine, r, resultCmp); diff != "" {
			t.Fatalf("result %d: changing the merged result changed the one merged (-before +after):\n%s", i, diff)
		}
	}
}

// scribble changes every map, slice, histogram and kept encoding r holds.
func scribble(r *Result) {
	for _, h := range r.histograms() {
		if *h != nil {
			(*h).RecordValue(lowest)
		}
	}
	for k := range r.Codes {
		r.Codes[k]++
	}
	for k := range r.Errors {
		r.Errors[k]++
	}
	for k := range r.ErrorExample {
		r.ErrorExample[k] += "!"
	}
	for i := range r.Steps {
		r.Steps[i] += "!"
	}
	for i := range r.Raw {
		r.Raw[i].Done++
	}
	for i := range r.Intervals {
		r.Intervals[i].Sent++
		for _, enc := range [][]byte{r.Intervals[i].Latency.enc, r.Intervals[i].Service.enc} {
			for j := range enc {
				enc[j] = '!'
			}
		}
	}
	for i := range r.StepStats {
		st := &r.StepStats[i]
		st.Latency.RecordValue(lowest)
		st.Service.RecordValue(lowest)
		for k := range st.Codes {
			st.Codes[k]++
		}
		for k := range st.Errors {
			st.Errors[k]++
		}
	}
}

// TestMergeRefuses holds Merge to an error naming the shard and the field
// for results that cannot be added.
func TestMergeRefuses(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	ok := func() *Result {
		return &Result{Start: start, Interval: time.Second, Mode: "open", Steps: []string{"a", "b"},
			StepStats: []StepStats{{Name: "a", Service: NewHistogram()}, {Name: "b", Service: NewHistogram()}}, Latency: NewHistogram(),
			Intervals: []Interval{{End: time.Second}}}
	}
	coarse := hdr.New(lowest, highest, 2)
	coarseKept, err := Keep(hdr.NewPacked(lowest, highest, 2))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(r *Result)
		want   string
	}{
		{"nil", nil, "shard 1: no result"},
		{"interval", func(r *Result) { r.Interval = 2 * time.Second }, "shard 1: Interval 2s, shard 0's 1s"},
		{"mode", func(r *Result) { r.Mode = "closed" }, `shard 1: Mode "closed", shard 0's "open"`},
		{"steps", func(r *Result) { r.Steps = []string{"a", "c"} }, `shard 1: Steps ["a" "c"], shard 0's ["a" "b"]`},
		{"step stats", func(r *Result) { r.StepStats = r.StepStats[:1] }, "shard 1: StepStats of 1 steps, shard 0's of 2"},
		{"step name", func(r *Result) { r.StepStats[1].Name = "c" }, `shard 1: StepStats[1] named "c", shard 0's "b"`},
		{"spread", func(r *Result) { r.Start = start.Add(time.Second) }, "shard 1: Start 1s after the earliest shard's, not within one interval (1s)"},
		{"latency geometry", func(r *Result) { r.Latency = coarse },
			"shard 1: Latency histogram: range 1000 to 3600000000000 ns at 2 significant digits, not the 1000 to 3600000000000 at 3 of shard 0"},
		{"step geometry", func(r *Result) { r.StepStats[1].Service = coarse },
			"shard 1: StepStats[1].Service histogram: range"},
		{"interval geometry", func(r *Result) { r.Intervals[0].Service = coarseKept },
			"shard 1: interval 0: Service histogram: range 1000 to 3600000000000 ns at 2 significant digits, not the 1000 to 3600000000000 at 3 of latlab's"},
		{"interval corrupt", func(r *Result) { r.Intervals[0].Latency = KeptEncoding([]byte("not a histogram")) },
			"shard 1: interval 0: Latency: decoding histogram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var second *Result
			if tt.change != nil {
				second = ok()
				tt.change(second)
			}
			_, err := Merge([]*Result{ok(), second, ok()}, MergeOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "merging results: ") {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	for name, shards := range map[string][]*Result{"none": nil, "nil first": {nil, ok()}} {
		if _, err := Merge(shards, MergeOptions{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Merge([]*Result{ok(), ok()}, MergeOptions{}); err != nil {
		t.Errorf("two like results: %v", err)
	}
}

func TestCountsDiff(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	for _, v := range []time.Duration{time.Millisecond, 2 * time.Millisecond, time.Second} {
		recordDuration(a, v)
		recordDuration(b, v)
	}
	if d := CountsDiff(a, b); d != "" {
		t.Errorf("alike histograms: %s", d)
	}
	p := NewPacked()
	p.MergeFrom(a)
	if d := CountsDiff(a, p); d != "" {
		t.Errorf("a histogram and itself packed: %s", d)
	}
	recordDuration(b, 2*time.Millisecond)
	recordDuration(b, 5*time.Second)
	if d, want := CountsDiff(a, b), "at 1.999872ms: 1, 2; at 4.999610368s: 0, 1"; d != want {
		t.Errorf("CountsDiff = %q, want %q", d, want)
	}
	if d := CountsDiff(p, (*hdr.Histogram)(nil)); d == "" {
		t.Error("a histogram and nil are alike")
	}
	if d := CountsDiff(a, hdr.New(lowest, highest, 2)); !strings.Contains(d, "significant digits") {
		t.Errorf("histograms of other precision: %q", d)
	}
	if d := CountsDiff((*hdr.Histogram)(nil), (*hdr.PackedHistogram)(nil)); d != "" {
		t.Errorf("nil and nil: %q", d)
	}
}

// FuzzMerge splits random runs over 1 to 8 recorders started up to a
// spread apart, and holds their merge to one recorder's figures: the
// whole run's exactly, the intervals' added up, and all of every
// interval when the shards started together.
func FuzzMerge(f *testing.F) {
	f.Add(uint64(1), uint8(1), uint16(300), uint32(0))
	f.Add(uint64(2), uint8(3), uint16(1000), uint32(0))
	f.Add(uint64(3), uint8(8), uint16(50), uint32(20_000))
	f.Add(uint64(4), uint8(5), uint16(2000), uint32(400_000_000))
	f.Add(uint64(5), uint8(7), uint16(0), uint32(1000))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, requests uint16, spread uint32) {
		n = 1 + n%8
		requests %= 3000
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		d := time.Duration(spread) % (500 * time.Millisecond)
		cfg := Config{Interval: time.Second, Steps: mergeSteps, KeepRaw: int64(rng.IntN(int(requests) + 1))}
		run := record(t, cfg, stream(rng, int(requests)), offsets(rng, int(n), d))
		keep := int64(rng.IntN(int(requests) + 1))
		merged, err := Merge(run.shards, MergeOptions{KeepRaw: keep})
		if err != nil {
			t.Fatal(err)
		}
		checkWholeRun(t, merged, run.one)
		checkIntervals(t, merged, run, d == 0)
		var kept int64
		for _, sh := range run.shards {
			kept += int64(len(sh.Raw))
		}
		want := kept
		if keep > 0 {
			want = min(kept, keep)
		}
		if int64(len(merged.Raw)) != want {
			t.Errorf("kept %d raw of the shards' %d, cap %d; want %d", len(merged.Raw), kept, keep, want)
		}
		if cfg.KeepRaw > 0 && merged.RawDropped+int64(len(merged.Raw)) != merged.Requests {
			t.Errorf("%d raw kept and %d dropped of %d requests", len(merged.Raw), merged.RawDropped, merged.Requests)
		}
	})
}

// BenchmarkMerge merges a minute of 100 shards' runs: 60 intervals each,
// every one with latency and service-time histograms of 1,000 requests
// over some 900 buckets, and no raw samples. Its time over 100 is the
// cost per shard; decoding the shards' interval histograms takes most.
func BenchmarkMerge(b *testing.B) {
	const shards, intervals = 100, 60
	rng := rand.New(rand.NewPCG(1, 1))
	start := time.Now()
	results := make([]*Result, shards)
	for i := range results {
		r := &Result{Start: start.Add(time.Duration(rng.IntN(1000)) * time.Microsecond), Interval: time.Second, Mode: "open",
			Codes: map[int]int64{200: 1}, Errors: map[string]int64{}}
		for _, h := range r.histograms() {
			*h = NewHistogram()
		}
		for k := range intervals {
			var in [2]*hdr.PackedHistogram
			for j := range in {
				in[j] = NewPacked()
				for range 1000 {
					v := int64(math.Exp(rng.NormFloat64()) * float64(2*time.Millisecond))
					_ = in[j].RecordValue(min(max(v, lowest), highest))
				}
				in[j].MergeInto(*r.histograms()[j])
			}
			lat, err := Keep(in[0])
			if err != nil {
				b.Fatal(err)
			}
			svc, err := Keep(in[1])
			if err != nil {
				b.Fatal(err)
			}
			r.Intervals = append(r.Intervals, Interval{Start: time.Duration(k) * time.Second, End: time.Duration(k+1) * time.Second,
				Sent: 1000, Completed: 1000, InFlightMean: 2, InFlightMax: 5, Latency: lat, Service: svc})
		}
		results[i] = r
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Merge(results, MergeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
