package record_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
)

// TestWireAttack round-trips what a real attack measured: a two-step
// scenario against a server on 127.0.0.1 that fails some requests, with
// fewer raw samples kept than requests sent. The result comes back equal
// field by field, histograms to the count, and reads the same.
func TestWireAttack(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%5 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	sc, err := load.ParseScenario("scenario.yaml", fmt.Appendf(nil, `steps:
  - {name: create, method: POST, url: "%[1]s/objects/{{.Iter}}", body: x}
  - {name: get, url: "%[1]s/objects/{{.Iter}}"}
`, srv.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	const iterations, keep = 30, 25
	res, err := load.Attack(context.Background(), load.Config{
		Source:   sc,
		Model:    load.Closed{Workers: 1},
		Count:    iterations,
		Interval: 20 * time.Millisecond,
		KeepRaw:  keep,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 2*iterations || len(res.Raw) != keep || len(res.StepStats) != 2 || res.Codes[503] == 0 {
		t.Fatalf("the attack made %d requests (%d raw, %d steps, codes %v); want %d, %d raw, 2 steps and some 503s",
			res.Requests, len(res.Raw), len(res.StepStats), res.Codes, 2*iterations, keep)
	}

	var buf bytes.Buffer
	if err := record.EncodeResult(&buf, res); err != nil {
		t.Fatal(err)
	}
	got, err := record.DecodeResult(&buf)
	if err != nil {
		t.Fatal(err)
	}
	opts := cmp.Options{
		cmp.AllowUnexported(record.Result{}, record.Kept{}),
		cmp.Comparer(func(a, b *hdr.Histogram) bool {
			if a == nil || b == nil {
				return a == b
			}
			return a.Equals(b)
		}),
	}
	if diff := cmp.Diff(res, got, opts); diff != "" {
		t.Fatalf("decoded result differs (-measured +decoded):\n%s", diff)
	}
	for i, in := range got.Intervals {
		want, err := res.Intervals[i].Latency.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		h, err := in.Latency.Histogram()
		if err != nil {
			t.Fatalf("interval %d: %v", i, err)
		}
		if h.TotalCount() != in.Completed || h.TotalCount() != want.TotalCount() || h.ValueAtPercentile(99) != want.ValueAtPercentile(99) {
			t.Errorf("interval %d: decoded latency holds %d (p99 %d), want %d (p99 %d), its completed count",
				i, h.TotalCount(), h.ValueAtPercentile(99), in.Completed, want.ValueAtPercentile(99))
		}
	}
	for _, q := range []float64{50, 90, 99, 99.9, 100} {
		if a, b := res.Latency.ValueAtPercentile(q), got.Latency.ValueAtPercentile(q); a != b {
			t.Errorf("p%g: %d measured, %d decoded", q, a, b)
		}
	}
	if res.Latency.TotalCount() != got.Latency.TotalCount() {
		t.Errorf("latency counts %d measured, %d decoded", res.Latency.TotalCount(), got.Latency.TotalCount())
	}
}
