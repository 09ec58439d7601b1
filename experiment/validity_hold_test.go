package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

// A ramp's latency rises while workers are added; that is what it is run
// to see. Only its hold, the load after its last step, is judged for a
// trend, and a trend there is flagged.
func TestTrendRampHold(t *testing.T) {
	const n = 20_000 // 1 ms apart: the ramp adds workers for 10 s, then holds 10 s
	climb := synthRaw(11, n, 0)
	for i := range climb[:n/2] {
		// 1 ms more latency for every second of the ramp.
		climb[i].Done += time.Duration(i) * time.Microsecond
	}
	for i := range climb[n/2:] {
		climb[n/2+i].Done += n / 2 * time.Microsecond
	}
	res := &record.Result{Mode: "ramp", Requests: n, Raw: climb}
	v := spec.DefaultValidity()
	if why := holdTrend(v, res); why == "" {
		t.Fatal("the same samples, judged whole, not flagged: the test shows nothing")
	}
	res.HoldFrom = n / 2 * time.Millisecond
	if why := holdTrend(v, res); why != "" {
		t.Errorf("a ramp flat over its hold flagged: %s", why)
	}
	// Latency that climbs on through the hold is a trend.
	rising := synthRaw(12, n, 0)
	for i := range rising {
		rising[i].Done += time.Duration(i) * time.Microsecond
	}
	res.Raw = rising
	if why := holdTrend(v, res); !strings.Contains(why, "over the ramp's hold (from 10s)") {
		t.Errorf("a ramp rising over its hold: reason %q, want it flagged and named", why)
	}
}
