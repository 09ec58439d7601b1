package record

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// benchResult returns a minute of a run: 60 intervals of a thousand
// requests each, all kept raw.
func benchResult(b *testing.B) *Result {
	b.Helper()
	start := time.Now()
	rec := NewRecorder(start, Config{KeepRaw: 60_000})
	for i := range 60_000 {
		at := time.Duration(i) * time.Millisecond
		s := Sample{Intended: at, Sent: at + 3*time.Microsecond, Done: at + time.Duration(200+i%5000)*time.Microsecond, Code: 200, BytesIn: 120, BytesOut: 80}
		rec.Sent()
		rec.Record(i, &s)
	}
	r := rec.Stop()
	// Stop closed one interval for the whole minute: give it 60 as a run
	// of that length has, each with the same histograms.
	in := r.Intervals[0]
	r.Intervals = make([]Interval, 60)
	for i := range r.Intervals {
		r.Intervals[i] = in
		r.Intervals[i].Start, r.Intervals[i].End = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
	}
	return r
}

func BenchmarkEncodeResult(b *testing.B) {
	r := benchResult(b)
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		cw := &countWriter{}
		if err := EncodeResult(cw, r); err != nil {
			b.Fatal(err)
		}
		n = cw.n
	}
	b.ReportMetric(float64(n), "encoded_bytes/op")
}

func BenchmarkDecodeResult(b *testing.B) {
	var buf bytes.Buffer
	if err := EncodeResult(&buf, benchResult(b)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeResult(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
