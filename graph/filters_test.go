package graph

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFilters runs a node whose service has every filter kind and checks
// that each one acts and has its own latency tracked under its name. Time
// inside the synctest bubble is virtual, so the durations are exact
// however busy the machine.
func TestFilters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		topo, err := ParseTopology("filters.yaml", []byte(`services:
  - name: root
    filters:
      - fairqueue: {concurrency: 4, queues: 8, handsize: 2, queue_length: 10,
                    levels: [{name: workload, shares: 3, users: [alice]}, {name: global, shares: 1}]}
      - delay: {user: slowpoke, duration: 200ms}
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
		const delay, work = 200 * time.Millisecond, time.Millisecond
		got := map[string]time.Duration{"slowpoke": do("slowpoke"), "alice": do("alice")}
		want := map[string]time.Duration{"slowpoke": delay + work, "alice": work}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("time to answer /sleep?ms=1 by user (-want +got):\n%s", diff)
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
			// The delay filter's own latency holds the delay it added once.
			`latlab_request_filter_duration_seconds_sum{filter="delay"} 0.2` + "\n",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})
}
