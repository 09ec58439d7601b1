package middleware

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// serve sends a GET from user (in DefaultUserHeader; none if "") to h and
// returns the recorded response.
func serve(ctx context.Context, h http.Handler, user string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/", nil)
	if user != "" {
		req.Header.Set(DefaultUserHeader, user)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// ok is a next handler that does nothing, so the response is 200.
var ok = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// series returns the metrics of family name whose labels include labels.
func series(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) []*dto.Metric {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("gathering: %v", err)
	}
	var out []*dto.Metric
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue metrics
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// histogram returns the sample count and sum of histogram name with labels,
// zero if there is no such series.
func histogram(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) (uint64, float64) {
	t.Helper()
	var n uint64
	var sum float64
	for _, m := range series(t, g, name, labels) {
		n += m.GetHistogram().GetSampleCount()
		sum += m.GetHistogram().GetSampleSum()
	}
	return n, sum
}

// value returns the value of counter or gauge name with labels, zero if there
// is no such series.
func value(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) float64 {
	t.Helper()
	var v float64
	for _, m := range series(t, g, name, labels) {
		v += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return v
}
