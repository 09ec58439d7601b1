package graph

import (
	"net/http"
	"net/http/httptest"
	"strconv"
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
	// The delay is long enough that an undelayed request, however slow a
	// busy machine makes it, does not take as long.
	const delay = 200 * time.Millisecond
	slow := do("slowpoke")
	if slow < delay {
		t.Errorf("the delayed user took %s, want at least the %s delay", slow, delay)
	}
	fast := do("alice")
	if fast >= delay {
		t.Errorf("another user took %s, want no delay", fast)
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
	// The delay filter's own latency holds the delay it added once, and no
	// more than the two requests took in all.
	const sumName = `latlab_request_filter_duration_seconds_sum{filter="delay"} `
	i := strings.Index(body, sumName)
	if i < 0 {
		t.Fatalf("metrics lack %s", sumName)
	}
	line, _, _ := strings.Cut(body[i+len(sumName):], "\n")
	sum, err := strconv.ParseFloat(line, 64)
	if err != nil || sum < delay.Seconds() || sum > (slow+fast).Seconds() {
		t.Errorf("delay filter sum %q, want between the delay %s and the requests' %s", line, delay, slow+fast)
	}
}
