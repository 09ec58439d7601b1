package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// fakePrometheus answers /api/v1/query_range for a few known queries and
// remembers the form of every request.
type fakePrometheus struct {
	*httptest.Server
	mu    sync.Mutex
	forms map[string]map[string]string // query → form values
}

const matrixAnswer = `{"status":"success","warnings":["results truncated"],"data":{"resultType":"matrix","result":[
 {"metric":{"__name__":"latlab_requests_total","service":"root"},"values":[[1700000000,"1"],[1700000001.5,"2.5"],[1700000002,"NaN"]]},
 {"metric":{"service":"leaf"},"values":[[1700000001,"7"]]}
]}}`

func newFakePrometheus(t *testing.T) *fakePrometheus {
	t.Helper()
	f := &fakePrometheus{forms: map[string]map[string]string{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query_range" {
			http.NotFound(w, r)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		q := r.Form.Get("query")
		f.mu.Lock()
		f.forms[q] = map[string]string{"start": r.Form.Get("start"), "end": r.Form.Get("end"), "step": r.Form.Get("step")}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch q {
		case "rate(latlab_requests_total[1m])":
			_, _ = w.Write([]byte(matrixAnswer))
		case "empty":
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
		case "histogram":
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{},"histograms":[[1700000000,{"count":"3","sum":"1.5","buckets":[[0,"0.5","1","3"]]}]]}]}}`))
		case "bad(":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status":"error","errorType":"bad_data","error":"1:5: parse error: unclosed left parenthesis"}`))
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func TestQueryRange(t *testing.T) {
	f := newFakePrometheus(t)
	start := time.Unix(1700000000, 0)
	end := start.Add(2 * time.Second)
	queries := map[string]string{
		"rps":     "rate(latlab_requests_total[1m])",
		"nothing": "empty",
		"broken":  "bad(",
		"crash":   "up",
	}
	points, errs := QueryRange(context.Background(), f.URL, queries, start, end, 500*time.Millisecond)

	root := map[string]string{"__name__": "latlab_requests_total", "service": "root"}
	leaf := map[string]string{"service": "leaf"}
	want := []Point{
		{Probe: "prometheus", Series: "rps", Labels: root, T: 0, Value: 1},
		{Probe: "prometheus", Series: "rps", Labels: root, T: 1500 * time.Millisecond, Value: 2.5},
		{Probe: "prometheus", Series: "rps", Labels: leaf, T: time.Second, Value: 7},
	}
	if diff := cmp.Diff(want, points); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}

	f.mu.Lock()
	form := f.forms["rate(latlab_requests_total[1m])"]
	f.mu.Unlock()
	if diff := cmp.Diff(map[string]string{"start": "1700000000", "end": "1700000002", "step": "0.5"}, form); diff != "" {
		t.Errorf("request form (-want +got):\n%s", diff)
	}

	// Errors come in the order of the queries' names: broken, crash, rps.
	type summary struct {
		Name    string
		Warning bool
		Has     string
	}
	wantErrs := []summary{
		{"broken", false, "unclosed left parenthesis"},
		{"crash", false, "500"},
		{"rps", true, "results truncated"},
		{"rps", true, "1 samples that are not finite"},
	}
	var gotErrs []summary
	for _, err := range errs {
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Fatalf("error %v is not a *QueryError", err)
		}
		if !strings.Contains(err.Error(), f.URL) || !strings.Contains(err.Error(), qe.Name) || !strings.Contains(err.Error(), qe.Query) {
			t.Errorf("error %q does not name the query, its text and the URL", err)
		}
		has := ""
		for _, w := range wantErrs {
			if w.Name == qe.Name && strings.Contains(err.Error(), w.Has) {
				has = w.Has
			}
		}
		gotErrs = append(gotErrs, summary{qe.Name, qe.Warning, has})
	}
	if diff := cmp.Diff(wantErrs, gotErrs); diff != "" {
		t.Errorf("errors (-want +got):\n%s\nall: %v", diff, errs)
	}
	var apiErr *v1.Error
	if !errors.As(errs[0], &apiErr) || apiErr.Type != v1.ErrBadData {
		t.Errorf("the bad query's error %v does not unwrap to a bad_data *v1.Error", errs[0])
	}
}

func TestQueryRangeHistogramWarning(t *testing.T) {
	f := newFakePrometheus(t)
	start := time.Unix(1700000000, 0)
	points, errs := QueryRange(context.Background(), f.URL, map[string]string{"h": "histogram"}, start, start.Add(time.Minute), 0)
	if len(points) != 0 {
		t.Errorf("got %d points from native histograms, want none", len(points))
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "1 native histogram samples") {
		t.Errorf("errors %v, want one warning about a native histogram sample", errs)
	}
	f.mu.Lock()
	step := f.forms["histogram"]["step"]
	f.mu.Unlock()
	if step != "1" {
		t.Errorf("default step %q, want 1 (second)", step)
	}
}

func TestQueryRangeBadInput(t *testing.T) {
	f := newFakePrometheus(t)
	start := time.Unix(1700000000, 0)
	one := map[string]string{"rps": "rate(latlab_requests_total[1m])"}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		url      string
		end      time.Time
		step     time.Duration
		wantErrs int
		has      string
	}{
		{"end before start", context.Background(), f.URL, start.Add(-time.Second), time.Second, 1, "before it starts"},
		{"negative step", context.Background(), f.URL, start.Add(time.Second), -time.Second, 1, "negative step"},
		{"bad url", context.Background(), "http://[::1", start.Add(time.Second), time.Second, 1, "prometheus client"},
		{"refused", context.Background(), "http://127.0.0.1:1", start.Add(time.Second), time.Second, 1, "127.0.0.1:1"},
		{"cancelled", cancelled, f.URL, start.Add(time.Second), time.Second, 1, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			points, errs := QueryRange(tt.ctx, tt.url, one, start, tt.end, tt.step)
			if len(points) != 0 {
				t.Errorf("got %d points, want none", len(points))
			}
			if len(errs) != tt.wantErrs || !strings.Contains(errs[0].Error(), tt.has) {
				t.Errorf("errors %v, want %d containing %q", errs, tt.wantErrs, tt.has)
			}
		})
	}
	if points, errs := QueryRange(context.Background(), f.URL, nil, start, start, 0); points != nil || errs != nil {
		t.Errorf("no queries gave %v, %v; want nothing", points, errs)
	}
}

func TestQueryRangeDefaultStep(t *testing.T) {
	tests := map[time.Duration]time.Duration{
		0:                time.Second,
		time.Hour:        time.Second,
		11000 * 1e9:      time.Second,
		11001 * 1e9:      2 * time.Second,
		24 * time.Hour:   8 * time.Second,
		7 * 24 * 3600e9:  55 * time.Second,
		30 * time.Second: time.Second,
	}
	for window, want := range tests {
		if got := defaultStep(window); got != want {
			t.Errorf("defaultStep(%s) = %s, want %s", window, got, want)
		}
	}
}
