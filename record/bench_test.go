package record

import (
	"testing"
	"time"
)

// BenchmarkRecord is the per-request cost of recording one sample.
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder(time.Now(), Config{})
	s := &Sample{Intended: time.Millisecond, Sent: time.Millisecond + 3*time.Microsecond, Done: 2 * time.Millisecond, Code: 200, BytesIn: 120, BytesOut: 60}
	b.ReportAllocs()
	for b.Loop() {
		r.Sent()
		r.Record(0, s)
	}
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
	r := NewRecorder(time.Now(), Config{KeepRaw: 1 << 62})
	s := &Sample{Intended: time.Millisecond, Sent: time.Millisecond + 3*time.Microsecond, Done: 2 * time.Millisecond, Code: 200, BytesIn: 120, BytesOut: 60}
	b.ReportAllocs()
	for b.Loop() {
		r.Sent()
		r.Record(0, s)
	}
}
