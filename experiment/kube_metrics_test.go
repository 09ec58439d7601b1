package experiment

import (
	"testing"
	"time"

	"github.com/latlab/latlab/cluster"
)

// TestPodPoints checks a pod's process series: its CPU as a share of its
// limit, else of its node, else none, and its working set.
func TestPodPoints(t *testing.T) {
	base := cluster.PodUsage{Pod: "front-7d-x", Node: "node-1", Workload: "front", CPU: 0.25, Memory: 1 << 20}
	for _, tc := range []struct {
		name          string
		limit, node   float64
		allowed, cpus float64 // 0: no such series
	}{
		{"limit", 0.5, 4, 50, 0.5},
		{"node", 0, 4, 6.25, 4},
		{"neither", 0, 0, 0, 0},
	} {
		u := base
		u.CPULimit, u.NodeCPU = tc.limit, tc.node
		got := map[string]float64{}
		for _, p := range podPoints(u, 3*time.Second) {
			if p.Probe != "process" || p.T != 3*time.Second || p.Labels["pid"] != "front-7d-x" || p.Labels["comm"] != "front" ||
				p.Labels["role"] != "target" || p.Labels["node"] != "node-1" {
				t.Errorf("%s: point %+v", tc.name, p)
			}
			got[p.Series] = p.Value
		}
		want := map[string]float64{"up": 1, "cpu_percent": 25, "working_set_bytes": 1 << 20}
		if tc.cpus > 0 {
			want["cpus_allowed"], want["cpu_allowed_percent"] = tc.cpus, tc.allowed
		}
		if len(got) != len(want) {
			t.Errorf("%s: series %v; want %v", tc.name, got, want)
		}
		for s, v := range want {
			if g, ok := got[s]; !ok || g != v {
				t.Errorf("%s: %s = %v (%t); want %v", tc.name, s, g, ok, v)
			}
		}
	}
}
