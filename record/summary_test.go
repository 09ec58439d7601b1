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
