package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// TestTimings checks that Timings walks what Samples does, narrowed to
// Done − Sent and Sent − Intended, and stops at fn's error.
func TestTimings(t *testing.T) {
	ctx := context.Background()
	db, id := oneRun(t, "timings", "spec", withSamples(recorded(t, time.Now(), 2000, 21), 2500), nil)
	type timing struct{ Service, Lag time.Duration }
	var want, got []timing
	if err := db.Samples(ctx, id, func(s record.Raw) error {
		want = append(want, timing{s.Done - s.Sent, s.Sent - s.Intended})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Timings(ctx, id, func(service, lag time.Duration) error {
		got = append(got, timing{service, lag})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != 2500 {
		t.Fatalf("Samples walked %d samples; want 2500", len(want))
	}
	lagged := 0
	for _, w := range want {
		if w.Lag != 0 {
			lagged++
		}
	}
	if lagged == 0 {
		t.Fatal("no sample has a lag: the walk could swap service time and lag unseen")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Timings (-Samples' Done−Sent, Sent−Intended +got):\n%s", diff)
	}

	stop := context.Canceled // any error will do
	n := 0
	err := db.Timings(ctx, id, func(time.Duration, time.Duration) error {
		if n++; n == 10 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 10 {
		t.Errorf("Timings with fn failing at the 10th: err %v after %d calls; want %v after 10", err, n, stop)
	}

	// SQLite keeps a real in an integer column; the walk refuses it
	// rather than reading it as nothing.
	if _, err := db.w.ExecContext(ctx, `UPDATE samples SET done_ns = done_ns + 0.5 WHERE run_id = ? AND seq = 3`, id); err != nil {
		t.Fatal(err)
	}
	n = 0
	err = db.Timings(ctx, id, func(time.Duration, time.Duration) error { n++; return nil })
	if err == nil || !strings.Contains(err.Error(), "want integers") || n != 3 {
		t.Errorf("Timings over a real service time: err %v after %d calls; want integers wanted after 3", err, n)
	}
}

// benchWalk stores one run of a million raw samples and times walk over
// it, what latlab report -o report.html does for every run.
func benchWalk(b *testing.B, walk func(*DB, int64) error) {
	const n = 1_000_000
	db, id := oneRun(b, "bench", "bench", withSamples(recorded(b, time.Now(), 2000, 22), n), nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := walk(db, id); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sample")
}

// BenchmarkSamples walks a million raw samples whole.
func BenchmarkSamples(b *testing.B) {
	benchWalk(b, func(db *DB, id int64) error {
		return db.Samples(context.Background(), id, func(record.Raw) error { return nil })
	})
}

// BenchmarkTimings walks the service times and lags of a million raw
// samples.
func BenchmarkTimings(b *testing.B) {
	benchWalk(b, func(db *DB, id int64) error {
		return db.Timings(context.Background(), id, func(time.Duration, time.Duration) error { return nil })
	})
}
