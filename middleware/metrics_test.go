package middleware

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

func TestNilMetrics(t *testing.T) {
	var m *Metrics
	if err := m.Register(prometheus.NewRegistry()); err != nil {
		t.Errorf("nil Metrics: Register: %v", err)
	}
	q, err := NewFairQueue(FairQueueConfig{Concurrency: 1}, m)
	if err != nil {
		t.Fatal(err)
	}
	h := Chain(Track("delay", m, Delay("slow", "", 0)), Track("fq", m, q.Filter()))(ok)
	if rec := serve(t.Context(), h, "u"); rec.Code != http.StatusOK {
		t.Errorf("code %d; want 200", rec.Code)
	}
}

func TestNewMetricsUnregistered(t *testing.T) {
	m := NewMetrics(nil)
	serve(t.Context(), Track("f", m, Passthrough())(ok), "")
	reg := prometheus.NewRegistry()
	if n, _ := histogram(t, reg, filterDuration, nil); n != 0 {
		t.Errorf("an unregistered Metrics reached a registry: %d observations", n)
	}
}

// Two Metrics on one registry share its series.
func TestNewMetricsTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	m1, m2 := NewMetrics(reg), NewMetrics(reg)
	serve(t.Context(), Track("f", m1, Passthrough())(ok), "")
	serve(t.Context(), Track("f", m2, Passthrough())(ok), "")
	if n, _ := histogram(t, reg, filterDuration, map[string]string{"filter": "f"}); n != 2 {
		t.Errorf("observations = %d; want 2", n)
	}
}

func TestRegisterConflict(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "latlab_request_filter_rejected_total", Help: "other"}))
	if err := NewMetrics(nil).Register(reg); err == nil {
		t.Error("Register over a different metric of the same name: no error")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewMetrics over a different metric of the same name: no panic")
		}
	}()
	NewMetrics(reg)
}

// Every histogram has classic buckets from 10 µs to 10 s and a native
// histogram of schema 5 (factor 2^(1/32) ≈ 1.022, the largest ≤ 1.03):
// buckets 2.2% wide.
func TestHistogramShape(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	serve(t.Context(), Track("f", m, Passthrough())(ok), "")
	q, err := NewFairQueue(FairQueueConfig{}, m)
	if err != nil {
		t.Fatal(err)
	}
	serve(t.Context(), q.Filter()(ok), "u")

	type shape struct {
		Buckets       int
		First, Last   float64
		NativeSchema  int32
		ZeroThreshold bool
	}
	got := map[string]shape{}
	for _, name := range []string{filterDuration, waitDuration} {
		ms := series(t, reg, name, nil)
		if len(ms) != 1 {
			t.Fatalf("%s: %d series; want 1", name, len(ms))
		}
		h := ms[0].GetHistogram()
		b := h.GetBucket()
		got[name] = shape{len(b), b[0].GetUpperBound(), b[len(b)-1].GetUpperBound(), h.GetSchema(), h.GetZeroThreshold() > 0}
	}
	want := shape{Buckets: 25, First: 10e-6, Last: 10, NativeSchema: 5, ZeroThreshold: true}
	if diff := cmp.Diff(map[string]shape{filterDuration: want, waitDuration: want}, got); diff != "" {
		t.Errorf("histograms (-want +got):\n%s", diff)
	}
}
