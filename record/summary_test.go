package record

import (
	"math"
	"testing"
	"time"
)

// TestSummaryStdevAndTransfer holds the standard deviation of each
// distribution and the bytes per second in and out over the run's window.
func TestSummaryStdevAndTransfer(t *testing.T) {
	r := NewRecorder(time.Now(), Config{})
	for i, d := range []time.Duration{time.Millisecond, 3 * time.Millisecond} {
		r.Sent()
		r.Record(i, &Sample{Done: d, Code: 200, BytesIn: 1000, BytesOut: 100})
	}
	res := r.Stop()
	res.Mode = "closed"
	s := summarize(t, res)
	// 1 ms and 3 ms: mean 2 ms, standard deviation 1 ms, to the
	// histogram's three significant digits.
	for name, d := range map[string]Dist{"latency": s.Latency, "service": s.ServiceTime} {
		if d.Stdev == nil || math.Abs(*d.Stdev-0.001) > 0.001*0.005 {
			t.Errorf("%s stdev %v, want 0.001 s", name, d.Stdev)
		}
	}
	// 2000 bytes in and 200 out from the first intended send (0) to the
	// last completion (3 ms).
	if want := 2000 / 0.003; math.Abs(s.BytesInRate-want) > 1e-6*want {
		t.Errorf("bytes in per second %g, want %g", s.BytesInRate, want)
	}
	if want := 200 / 0.003; math.Abs(s.BytesOutRate-want) > 1e-6*want {
		t.Errorf("bytes out per second %g, want %g", s.BytesOutRate, want)
	}
}

// summarize returns r's summary.
func summarize(t *testing.T, r *Result) Summary {
	t.Helper()
	s, err := Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSummaryReplyGaps holds every reply gap of every shard's streams in
// the summary's reply_gap_seconds, and the key absent when no call had
// two replies.
func TestSummaryReplyGaps(t *testing.T) {
	r := NewRecorder(time.Now(), Config{})
	for i := range 8 { // over the shards
		r.Sent()
		r.Record(i, &Sample{Done: time.Millisecond, Code: GRPCCode(0), MsgsIn: 3,
			ReplyGaps: []time.Duration{100 * time.Microsecond, 300 * time.Microsecond}})
	}
	r.Stop()
	res := r.Stop() // a second Stop counts each gap once still
	res.Mode = "closed"
	s := summarize(t, res)
	if s.ReplyGap == nil || s.ReplyGap.Count != 16 || s.ReplyGap.Max == nil || math.Abs(*s.ReplyGap.Max-300e-6) > 1e-6 {
		t.Errorf("reply gaps %+v, want 16 of at most 300 µs", s.ReplyGap)
	}
	r = NewRecorder(time.Now(), Config{})
	r.Sent()
	r.Record(0, &Sample{Done: time.Millisecond, Code: GRPCCode(0), MsgsIn: 1})
	res = r.Stop()
	res.Mode = "closed"
	if s := summarize(t, res); s.ReplyGap != nil {
		t.Errorf("reply gaps %+v without a stream, want none", s.ReplyGap)
	}
}
