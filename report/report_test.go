package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

func TestAttackText(t *testing.T) {
	r := record.NewRecorder(time.Now(), record.Config{})
	for i := 0; i < 1000; i++ {
		r.Sent()
		d := time.Duration(100+i) * time.Microsecond
		r.Record(i, &record.Sample{Intended: 0, Sent: 20 * time.Millisecond, Done: 20*time.Millisecond + d, Code: 200, Retries: uint8(i % 500 / 499)})
	}
	res := r.Stop()
	res.Mode, res.TargetRate, res.Concurrency = "open", 1000, 10000
	var buf bytes.Buffer
	if err := Attack(&buf, res, "GET http://127.0.0.1/"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"Target     GET http://127.0.0.1/",
		"open loop, 1000/s intended",
		"codes 200:1000",
		"latency (from intended send)",
		"service time (from actual send)",
		"Latency histogram",
		"warning: lag p99 is 20.00ms", // every request left 20ms late
		"; 2 sent again on a new connection",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The service-time p50 is 100µs + 500µs, printed with µs resolution.
	if !strings.Contains(out, "600µs") && !strings.Contains(out, "599µs") && !strings.Contains(out, "601µs") {
		t.Errorf("service p50 of ~600µs not shown:\n%s", out)
	}
}
