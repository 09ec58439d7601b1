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
		if _, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Rate: 1000, Rep: rep}, rep), res, warmup, nil, nil); err != nil {
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
	db, _ := openTemp(b)
	exp := newExperiment(b, db, "bench", "bench")
	res := withIntervals(recorded(b, time.Now(), 10_000, 11), 60)
	id, err := db.WriteRun(ctx, exp.ID, info(Trial{Variant: "a", Rep: 1}, 0), res, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
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
