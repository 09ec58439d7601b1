package analysis

import (
	"time"

	"github.com/latlab/latlab/record"
)

// Behind is how an open-loop run kept to its schedule. The zero value,
// which FellBehind gives a closed-loop run, fell behind in nothing.
type Behind struct {
	Due, Sent int64   // requests due before the end (sent or not), and those sent
	Achieved  float64 // Sent/Due; 1 when none were due
	Short     bool    // Achieved is below the bound
	LagP99    time.Duration
	Late      bool // LagP99 is above the bound; false without a lag p99
}

// Fell reports whether the generator fell behind in either way.
func (b Behind) Fell() bool { return b.Short || b.Late }

// FellBehind judges whether the generator fell behind res's schedule: it
// sent fewer than minAchieved of the requests due in the run (Sent against
// Sent+Unsent: the generator counts every request due before the end), or
// the p99 of lag, when the lag histogram has one, is above maxLagP99. A
// run without a target rate (closed loop, sequential) has no schedule to
// fall behind. The share is of requests due, not a rate over the span the
// sends took: a Poisson schedule's span varies by about 1/√n around n/rate,
// so the rate it gives reads low for a generator that sent every request.
func FellBehind(res *record.Result, minAchieved float64, maxLagP99 time.Duration) Behind {
	var b Behind
	if res == nil || res.TargetRate <= 0 {
		return b
	}
	b.Due, b.Sent, b.Achieved = res.Sent+res.Unsent, res.Sent, 1
	if b.Due > 0 {
		b.Achieved = float64(b.Sent) / float64(b.Due)
		b.Short = b.Achieved < minAchieved
	}
	if res.Lag != nil {
		if lag, ok := record.Quantile(res.Lag, 0.99); ok {
			b.LagP99, b.Late = lag, lag > maxLagP99
		}
	}
	return b
}
