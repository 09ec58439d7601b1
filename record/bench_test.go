package record

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkRecord is the per-request cost of recording one sample.
func BenchmarkRecord(b *testing.B) {
	benchRecord(b, Config{}, benchSample())
}

// benchSample is a successful request of 120 bytes in, 60 out, 1 ms after
// its intended send.
func benchSample() *Sample {
	return &Sample{Intended: time.Millisecond, Sent: time.Millisecond + 3*time.Microsecond, Done: 2 * time.Millisecond, Code: 200, BytesIn: 120, BytesOut: 60}
}

// benchRecord records s over and over on one worker of a Recorder of cfg.
func benchRecord(b *testing.B, cfg Config, s *Sample) {
	r := NewRecorder(time.Now(), cfg)
	b.ReportAllocs()
	for b.Loop() {
		r.Sent()
		r.Record(0, s)
	}
}

// BenchmarkRecordBreakdown is BenchmarkRecord for a sample that carries
// its wait and read, as every response of the clients does.
func BenchmarkRecordBreakdown(b *testing.B) {
	s := benchSample()
	s.Wait, s.Read = 900*time.Microsecond, 20*time.Microsecond
	benchRecord(b, Config{}, s)
}

// BenchmarkRecordParallel records from many goroutines at once, as workers do.
func BenchmarkRecordParallel(b *testing.B) {
	r := NewRecorder(time.Now(), Config{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		s := &Sample{Intended: time.Millisecond, Sent: time.Millisecond, Done: 2 * time.Millisecond, Code: 200}
		w := int(time.Now().UnixNano())
		for pb.Next() {
			r.Sent()
			r.Record(w, s)
		}
	})
}

// BenchmarkCloseInterval is the once-per-interval cost of folding the shards
// into the series.
func BenchmarkCloseInterval(b *testing.B) {
	r := NewRecorder(time.Now(), Config{})
	s := &Sample{Intended: 0, Sent: 0, Code: 200}
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i < 1000; i++ {
			s.Done = time.Duration(i) * time.Microsecond
			r.Sent()
			r.Record(i, s)
		}
		r.mu.Lock()
		r.closeInterval(r.ivStart + time.Second)
		r.mu.Unlock()
	}
}

// BenchmarkRecordKeepRaw is BenchmarkRecord with every request kept raw,
// as attack -o FILE.db does: the cost the results database adds per request.
func BenchmarkRecordKeepRaw(b *testing.B) {
	benchRecord(b, Config{KeepRaw: 1 << 62}, benchSample())
}

// BenchmarkRun records whole runs of n requests, n raw samples kept: the
// memory a run holds should grow linearly with n (latlab scale checks
// it: go test -run '^$' -bench 'Run/' -benchmem ./record | latlab scale -).
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{1_000, 4_000, 16_000, 64_000, 256_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := &Sample{Intended: time.Millisecond, Sent: time.Millisecond + 3*time.Microsecond, Done: 2 * time.Millisecond, Code: 200}
			b.ReportAllocs()
			for b.Loop() {
				r := NewRecorder(time.Now(), Config{KeepRaw: int64(n)})
				for range n {
					r.Sent()
					r.Record(0, s)
				}
				r.Stop()
			}
		})
	}
}

// BenchmarkBusyAdd is what Record spends on the in-flight time of one
// request that falls within the interval of the one before.
func BenchmarkBusyAdd(b *testing.B) {
	var bt busyTime
	for b.Loop() {
		bt.add(time.Millisecond, 2*time.Millisecond, time.Second)
	}
}

// BenchmarkKeptInterval is the cost of one interval of a long run, with
// 2,100 buckets populated in each of its histograms, as a second of 3,000
// connections against nginx populates: the time closing it takes, encoding
// its histograms included (close-ns/interval; ns/op adds recording its
// 2,100 requests), the bytes of its two encodings (encoded-B/interval),
// and the heap the run keeps for it (kept-B/interval).
func BenchmarkKeptInterval(b *testing.B) {
	r := NewRecorder(time.Now(), Config{})
	vals := secondValues(2100)
	before := liveHeap()
	var closing time.Duration
	n := 0
	for b.Loop() {
		fillInterval(r, vals)
		t0 := time.Now()
		endInterval(r)
		closing += time.Since(t0)
		n++
	}
	b.StopTimer()
	b.ReportMetric((float64(liveHeap())-float64(before))/float64(n), "kept-B/interval")
	in := r.res.Intervals[len(r.res.Intervals)-1]
	b.ReportMetric(float64(in.Latency.Size()+in.Service.Size()), "encoded-B/interval")
	b.ReportMetric(float64(closing.Nanoseconds())/float64(n), "close-ns/interval")
	runtime.KeepAlive(r)
	runtime.KeepAlive(vals)
}
