package analysis

import (
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/record"
)

func TestFellBehind(t *testing.T) {
	lag := func(d time.Duration) *hdr.Histogram {
		h := record.NewHistogram()
		for range 1000 {
			_ = h.RecordValue(d.Nanoseconds())
		}
		return h
	}
	for _, tc := range []struct {
		name string
		res  *record.Result
		want Behind
	}{
		{"closed loop", &record.Result{Sent: 10, Unsent: 90, Lag: lag(time.Second)}, Behind{}},
		{"nothing due", &record.Result{TargetRate: 100}, Behind{Achieved: 1}},
		{"exactly at the share", &record.Result{TargetRate: 100, Sent: 99, Unsent: 1}, Behind{Due: 100, Sent: 99, Achieved: 0.99}},
		{"below it", &record.Result{TargetRate: 100, Sent: 98, Unsent: 2}, Behind{Due: 100, Sent: 98, Achieved: 0.98, Short: true}},
		{"late", &record.Result{TargetRate: 100, Sent: 1000, Lag: lag(6 * time.Millisecond)},
			Behind{Due: 1000, Sent: 1000, Achieved: 1, LagP99: 6 * time.Millisecond, Late: true}},
		{"lag within", &record.Result{TargetRate: 100, Sent: 1000, Lag: lag(time.Millisecond)},
			Behind{Due: 1000, Sent: 1000, Achieved: 1, LagP99: time.Millisecond}},
	} {
		got := FellBehind(tc.res, spec.DefaultMinAchieved, spec.DefaultMaxLagP99)
		// The histogram holds 3 significant digits.
		if d := got.LagP99 - tc.want.LagP99; max(d, -d) > tc.want.LagP99/1000 {
			t.Errorf("%s: lag p99 %s; want %s", tc.name, got.LagP99, tc.want.LagP99)
		}
		got.LagP99 = tc.want.LagP99
		if got != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.name, got, tc.want)
		}
		if got.Fell() != (tc.want.Short || tc.want.Late) {
			t.Errorf("%s: Fell() = %v", tc.name, got.Fell())
		}
	}
}
