package record

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRecordBreakdown checks that wait and read go into their own
// histograms from every shard, that a sample without them (a failure, a
// client that cannot see them) is left out of both, and that the summary
// carries them.
func TestRecordBreakdown(t *testing.T) {
	r := NewRecorder(time.Now(), Config{Interval: time.Hour})
	for i := range 40 {
		r.Sent()
		r.Record(i, &Sample{Sent: time.Millisecond, Done: 10 * time.Millisecond, Code: 200,
			Wait: 6 * time.Millisecond, Read: 2 * time.Millisecond})
	}
	for i := range 3 {
		r.Sent()
		r.Record(i, &Sample{Sent: time.Millisecond, Done: 10 * time.Millisecond, Error: Reset})
	}
	r.Sent()
	r.Record(0, &Sample{Sent: time.Millisecond, Done: 3 * time.Millisecond, Code: 200, Wait: time.Millisecond})
	res := r.Stop()

	type counts struct{ Requests, Wait, Read int64 }
	if d := cmp.Diff(counts{44, 41, 40}, counts{res.Requests, res.Wait.TotalCount(), res.Read.TotalCount()}); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	sum := summarize(t, res)
	if sum.Wait.Count != 41 || sum.Read.Count != 40 || sum.Read.P50 == nil || *sum.Read.P50 < 0.00199 || *sum.Read.P50 > 0.00201 {
		t.Errorf("summary wait %+v, read %+v; want 41 and 40 samples, read p50 2ms", sum.Wait, sum.Read)
	}
}
