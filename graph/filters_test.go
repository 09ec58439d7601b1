package graph

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFilters runs a node whose service has every filter kind and checks
// that each one acts and has its own latency tracked under its name.
func TestFilters(t *testing.T) {
	topo, err := ParseTopology("filters.yaml", []byte(`services:
  - name: root
    filters:
      - fairqueue: {concurrency: 4, queues: 8, handsize: 2, queue_length: 10,
                    levels: [{name: workload, shares: 3, users: [alice]}, {name: global, shares: 1}]}
      - delay: {user: slowpoke, duration: 30ms}
      - passthrough: {}
      - passthrough: {}
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNode(NodeConfig{Topology: topo, Service: topo.Service("root")})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	h := n.Handler()
	do := func(user string) time.Duration {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/sleep?ms=1", nil)
		req.Header.Set("X-Remote-User", user)
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("user %s: status %d: %s", user, rec.Code, rec.Body.String())
		}
		return time.Since(start)
	}
	if d := do("slowpoke"); d < 30*time.Millisecond {
		t.Errorf("the delayed user took %s, want at least the 30ms delay", d)
	}
	if d := do("alice"); d > 25*time.Millisecond {
		t.Errorf("another user took %s, want no delay", d)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`latlab_request_filter_duration_seconds_count{filter="fairqueue"} 2`,
		`latlab_request_filter_duration_seconds_count{filter="delay"} 2`,
		`latlab_request_filter_duration_seconds_count{filter="passthrough"} 2`,
		`latlab_request_filter_duration_seconds_count{filter="passthrough-2"} 2`,
		`latlab_flowcontrol_request_wait_duration_seconds_count{flow="alice",priority_level="workload"} 1`,
		`latlab_flowcontrol_request_wait_duration_seconds_count{flow="slowpoke",priority_level="global"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// The delay filter's own latency holds the 30ms it added once.
	if !strings.Contains(body, `latlab_request_filter_duration_seconds_sum{filter="delay"} 0.03`) {
		i := strings.Index(body, `latlab_request_filter_duration_seconds_sum{filter="delay"}`)
		t.Errorf("delay filter sum: %.80s, want about 0.03", body[max(i, 0):])
	}
}
