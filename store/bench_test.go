package store

import (
	"context"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// benchRuns writes runs of res, one per iteration.
func benchRuns(b *testing.B, res, warmup *record.Result) {
	ctx := context.Background()
	db, _ := openTemp(b)
	exp := newExperiment(b, db, "bench", "bench")
	b.ReportAllocs()
	rep := 0
	for b.Loop() {
		rep++
		if _, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Level: record.Level{Rate: 1000}, Rep: rep}, rep), res, warmup, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteRunSamples writes a run with a million raw samples: it must
// take under 5 s.
func BenchmarkWriteRunSamples(b *testing.B) {
	const n = 1_000_000
	benchRuns(b, withSamples(recorded(b, time.Now(), 2000, 8), n), nil)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sample")
}

// BenchmarkWriteRun writes a typical run: 60 one-second intervals, 10,000
// raw samples and a warm-up of 5 intervals.
func BenchmarkWriteRun(b *testing.B) {
	res := withIntervals(withSamples(recorded(b, time.Now(), 10_000, 9), 10_000), 60)
	warmup := withIntervals(recorded(b, time.Now(), 1000, 10), 5)
	benchRuns(b, res, warmup)
}

// withIntervals returns a copy of r with n intervals, made by repeating
// r's own.
func withIntervals(r *record.Result, n int) *record.Result {
	c := *r
	c.Intervals = make([]record.Interval, n)
	for i := range c.Intervals {
		in := r.Intervals[i%len(r.Intervals)]
		in.Start, in.End = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
		c.Intervals[i] = in
	}
	return &c
}

// BenchmarkReadIntervals reads and decodes a typical run's series, what a
// report does for every run.
func BenchmarkReadIntervals(b *testing.B) {
	ctx := context.Background()
	db, id := oneRun(b, "bench", "bench", withIntervals(recorded(b, time.Now(), 10_000, 11), 60), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Intervals(ctx, id, Measure); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Totals(ctx, id, Measure); err != nil {
			b.Fatal(err)
		}
	}
}

// probePoints returns n probe points of a run that starts at start: a
// few series with labels, one point every 10 ms, as traces and scrapes
// give.
func probePoints(start time.Time, n int) []ProbePoint {
	series := []struct {
		probe, series string
		labels        map[string]string
	}{
		{"process", "cpu_allowed_percent", map[string]string{"pid": "4242", "role": "target"}},
		{"metrics", "latlab_filter_duration_seconds:p99", map[string]string{"filter": "delay", "instance": "127.0.0.1:9100"}},
		{"traces", "network_seconds", map[string]string{"caller": "gateway", "callee": "root"}},
		{"metrics", "up", nil},
	}
	ps := make([]ProbePoint, n)
	for i := range ps {
		s := series[i%len(series)]
		ps[i] = ProbePoint{Probe: s.probe, Series: s.series, Labels: s.labels,
			Time: start.Add(time.Duration(i) * 10 * time.Millisecond), Value: float64(i) / 7}
	}
	return ps
}

// BenchmarkWriteRunProbes writes a run of a few intervals and 10,000
// probe points, what a minute of traces and scrapes leaves.
func BenchmarkWriteRunProbes(b *testing.B) {
	ctx := context.Background()
	db, _ := openTemp(b)
	exp := newExperiment(b, db, "bench", "bench")
	res := recorded(b, time.Now(), 1000, 12)
	probes := probePoints(res.Start, 10_000)
	b.ReportAllocs()
	rep := 0
	for b.Loop() {
		rep++
		if _, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Rep: rep}, rep), res, nil, probes, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadProbes reads back the 10,000 probe points of a run.
func BenchmarkReadProbes(b *testing.B) {
	ctx := context.Background()
	res := recorded(b, time.Now(), 1000, 13)
	db, id := oneRun(b, "bench", "bench", res, probePoints(res.Start, 10_000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Probes(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}
