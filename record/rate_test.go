package record

import (
	"math"
	"testing"
	"time"
)

// run records n requests, the i-th due at i·gap, sent at i·sendGap and done
// latency later, and returns the result in the given mode.
func run(mode string, n int, gap, sendGap, latency time.Duration, code int) *Result {
	r := NewRecorder(time.Now(), Config{Interval: time.Hour})
	for i := range n {
		r.Sent()
		sent := time.Duration(i) * sendGap
		r.Record(i, &Sample{Intended: time.Duration(i) * gap, Sent: sent, Done: sent + latency, Code: code})
	}
	res := r.Stop()
	res.Mode = mode
	return res
}

func TestSendRate(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name             string
		res              *Result
		rate, throughput float64
	}{
		// 10 requests at 10/s are 10/s, though the first and the last are 0.9 s apart.
		{"open 10 at 10/s", run("open", 10, 100*ms, 100*ms, ms, 200), 10, 10},
		{"open 1000 at 1000/s", run("open", 1000, ms, ms, 100*time.Microsecond, 200), 1000, 1000},
		// The generator fell behind: sends 20 ms apart against a 10 ms schedule.
		{"open, generator behind", run("open", 101, 10*ms, 20*ms, ms, 200), 101 / 2.02, 101 / 2.02},
		// The target fell behind: answers arrive long after the last send, so
		// throughput is over first intended send → last completion.
		{"open, target behind", run("open", 11, 100*ms, 100*ms, 4*time.Second, 200), 11 / 1.1, 11 / 5.0},
		{"open, all failed", run("open", 10, 100*ms, 100*ms, ms, 503), 10, 0},
		// No schedule: sends over the first intended send → last completion.
		{"closed", run("closed", 10, 0, 10*ms, 10*ms, 200), 10 / 0.1, 10 / 0.1},
		{"open, one request", run("open", 1, 0, 0, 10*ms, 200), 100, 100},
		{"open, none", run("open", 0, 0, 0, 0, 200), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.res.SendRate(); math.Abs(got-tc.rate) > 1e-6*tc.rate {
				t.Errorf("SendRate = %.6g, want %.6g", got, tc.rate)
			}
			if got := tc.res.Throughput(); math.Abs(got-tc.throughput) > 1e-6*tc.throughput {
				t.Errorf("Throughput = %.6g, want %.6g", got, tc.throughput)
			}
			if s := summarize(t, tc.res); s.Rate != tc.res.SendRate() || s.Throughput != tc.res.Throughput() {
				t.Errorf("summary rate %g throughput %g, want %g and %g", s.Rate, s.Throughput, tc.res.SendRate(), tc.res.Throughput())
			}
		})
	}
}
