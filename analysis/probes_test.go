package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/store"
)

func TestProbeLabels(t *testing.T) {
	at := time.Unix(0, 0)
	proc := func(pid, role, comm string) store.ProbePoint {
		return store.ProbePoint{Probe: "process", Series: "rss_bytes", Labels: map[string]string{"pid": pid, "role": role, "comm": comm}, Time: at}
	}
	metric := func(series string, labels map[string]string) store.ProbePoint {
		return store.ProbePoint{Probe: "metrics", Series: series, Labels: labels, Time: at}
	}
	run := []store.ProbePoint{
		proc("900", "target", "latlab"), proc("1000", "target", "latlab"), proc("950", "latlab", "latlab"),
		proc("900", "target", "latlab"),
		metric("f_seconds:p99", map[string]string{"filter": "a", "instance": "127.0.0.1:1"}),
		metric("f_seconds:rate", map[string]string{"filter": "b", "instance": "127.0.0.1:1"}),
		metric("g_seconds:p99", map[string]string{"instance": "127.0.0.1:1"}),
		metric("g_seconds:p99", map[string]string{"instance": "127.0.0.1:2"}),
		metric("h", nil),
		{Probe: "process", Series: "up", Labels: map[string]string{"pid": "7"}}, {Probe: "process", Series: "up", Labels: map[string]string{"pid": "3"}},
		metric("s_seconds:p99", map[string]string{"service": "root", "instance": "127.0.0.1:3"}),
		metric("s_seconds:p99", map[string]string{"service": "leaf", "instance": "127.0.0.1:4"}),
	}
	want := []map[string]string{
		{"role": "target", "comm": "latlab", "n": "1"}, {"role": "target", "comm": "latlab", "n": "2"}, {"role": "latlab", "comm": "latlab"},
		{"role": "target", "comm": "latlab", "n": "1"},
		{"filter": "a"}, {"filter": "b"},
		{"instance": "127.0.0.1:1"}, {"instance": "127.0.0.1:2"},
		nil,
		{"n": "2"}, {"n": "1"},
		{"service": "root"}, {"service": "leaf"},
	}
	if diff := cmp.Diff(want, ProbeLabels(run)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestProbeStats summarises made-up runs: each run's points reduced to
// their median and maximum, the medians' median and the highest maximum;
// runs the level does not count, liveness, observers' routes and points
// that are not finite left out; a process told apart by its pid's rank,
// not its pid; series ordered by probe, series and labels.
func TestProbeStats(t *testing.T) {
	at := time.Unix(0, 0)
	point := func(probe, series string, labels map[string]string, v float64) store.ProbePoint {
		return store.ProbePoint{Probe: probe, Series: series, Labels: labels, Time: at, Value: v}
	}
	route := func(r string) map[string]string { return map[string]string{"route": r, "service": "root"} }
	proc := func(pid string) map[string]string {
		return map[string]string{"pid": pid, "role": "target", "comm": "nginx"}
	}
	points := map[int64][]store.ProbePoint{
		1: {
			point("metrics", "f_seconds:p99", route("/"), 1), point("metrics", "f_seconds:p99", route("/"), 2),
			point("metrics", "f_seconds:p99", route("/"), 9), point("metrics", "f_seconds:p99", route("/metrics"), 50),
			point("metrics", "f_seconds:p99", route("/healthz"), 50), point("metrics", "f_seconds:p99", route("/debug/pprof/"), 50),
			point("metrics", "up", nil, 1), point("metrics", "f_seconds:p50", route("/"), math.NaN()),
			point("process", "rss_bytes", proc("700"), 10), point("process", "rss_bytes", proc("300"), 20),
		},
		2: {
			point("metrics", "f_seconds:p99", route("/"), 4), point("metrics", "f_seconds:p99", route("/"), math.Inf(1)),
			point("process", "rss_bytes", proc("900"), 30), point("process", "rss_bytes", proc("800"), 40),
		},
		3: {point("metrics", "f_seconds:p99", route("/"), 3), point("metrics", "f_seconds:p99", route("/"), 5)},
		4: {point("metrics", "f_seconds:p99", route("/"), 1000)}, // not counted
	}
	l := LevelResult{Variant: "a", Level: Level{Rate: 100}, RunIDs: []int64{1, 2, 3}}
	got := ProbeStats(l, points)
	nginx := func(n string) map[string]string { return map[string]string{"role": "target", "comm": "nginx", "n": n} }
	want := []ProbeStat{
		// Run medians 2, 4 and 4: their median 4; the highest point 9.
		{Variant: "a", Level: l.Level, Probe: "metrics", Series: "f_seconds:p99", Labels: map[string]string{"route": "/", "service": "root"},
			Median: 4, Max: 9, Runs: 3, Points: 6},
		// By pid rank: pids 300 and 800 are n=1 (20 and 40), 700 and 900 n=2 (10 and 30).
		{Variant: "a", Level: l.Level, Probe: "process", Series: "rss_bytes", Labels: nginx("1"), Median: 30, Max: 40, Runs: 2, Points: 2},
		{Variant: "a", Level: l.Level, Probe: "process", Series: "rss_bytes", Labels: nginx("2"), Median: 20, Max: 30, Runs: 2, Points: 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := ProbeStats(LevelResult{Variant: "a", RunIDs: []int64{5}}, points); len(got) != 0 {
		t.Errorf("a run without points: %+v; want no stats", got)
	}
	if s := got[0]; s.Family() != "f_seconds" || s.Stat() != "p99" || got[1].Family() != "rss_bytes" || got[1].Stat() != "" {
		t.Errorf("Family, Stat: %q %q and %q %q", s.Family(), s.Stat(), got[1].Family(), got[1].Stat())
	}
}

// TestProbeStatsInterval gives a quantile series the median's interval
// once there are 6 runs, and keeps a bucket's bounds bounds: the lower
// median at both steps, never a mean of two.
func TestProbeStatsInterval(t *testing.T) {
	at := time.Unix(0, 0)
	points := map[int64][]store.ProbePoint{}
	var ids []int64
	for i := range 6 {
		id := int64(i + 1)
		ids = append(ids, id)
		v := float64(i + 1) // run medians 1 … 6
		points[id] = []store.ProbePoint{
			{Probe: "metrics", Series: "f_seconds:p99", Time: at, Value: v},
			// Two points a run: the plain median would be 0.0002.
			{Probe: "metrics", Series: "f_seconds:p99:bucket_lo", Time: at, Value: 0.0001},
			{Probe: "metrics", Series: "f_seconds:p99:bucket_lo", Time: at, Value: 0.0003},
			{Probe: "metrics", Series: "f_seconds:p100", Time: at, Value: 0.0001},
			{Probe: "metrics", Series: "f_seconds:p100", Time: at, Value: 0.0003},
		}
	}
	stats := ProbeStats(LevelResult{Variant: "a", RunIDs: ids}, points)
	byName := map[string]ProbeStat{}
	for _, s := range stats {
		byName[s.Series] = s
	}
	q := byName["f_seconds:p99"]
	// Six values: ranks 1 and 6 bracket the median at ≥ 95%.
	if !q.CIOK || q.Median != 3.5 || q.Lo != 1 || q.Hi != 6 {
		t.Errorf("p99: median %v [%v, %v] ok %v; want 3.5 [1, 6]", q.Median, q.Lo, q.Hi, q.CIOK)
	}
	b := byName["f_seconds:p99:bucket_lo"]
	if b.Median != 0.0001 || b.CIOK {
		t.Errorf("bucket_lo: median %v, ok %v; want 0.0001 with no interval", b.Median, b.CIOK)
	}
	if p := byName["f_seconds:p100"]; p.Median != 0.0003 {
		t.Errorf("p100: median %v; want 0.0003, the higher bound, never their mean", p.Median)
	}
	if s, upper, ok := b.BucketOf(); s != "p99" || upper || !ok {
		t.Errorf("BucketOf = %q %v %v; want p99, the lower bound", s, upper, ok)
	}
	few := ProbeStats(LevelResult{Variant: "a", RunIDs: ids[:5]}, points)
	for _, s := range few {
		if s.CIOK {
			t.Errorf("%s from 5 runs has an interval [%v, %v]; needs 6", s.Series, s.Lo, s.Hi)
		}
	}
}

func TestBucketBound(t *testing.T) {
	tests := []struct {
		series, stat string
		upper, ok    bool
	}{
		{"x_seconds:p99:bucket_lo", "p99", false, true},
		{"x_seconds:p100:bucket_hi", "p100", true, true},
		{"x_seconds:p99", "", false, false},
		{"x_seconds:bucket_hi", "", false, false},
		{"rss_bytes", "", false, false},
	}
	for _, tt := range tests {
		stat, upper, ok := BucketBound(tt.series)
		if stat != tt.stat || upper != tt.upper || ok != tt.ok {
			t.Errorf("BucketBound(%q) = %q %v %v; want %q %v %v", tt.series, stat, upper, ok, tt.stat, tt.upper, tt.ok)
		}
	}
}

// TestProbeLabelsDropRoot keeps a target's children apart from run to run
// by command and rank, never by their root's pid, which changes.
// TestProbeLabelsNamed: processes the runner named (a graph's nodes)
// keep their name, and are numbered only among those of the same name.
func TestProbeLabelsNamed(t *testing.T) {
	proc := func(pid, name string) store.ProbePoint {
		return store.ProbePoint{Probe: "process", Series: "rss_bytes", Labels: map[string]string{"pid": pid, "role": "target", "comm": "latlab", "name": name}}
	}
	got := ProbeLabels([]store.ProbePoint{proc("30", "root"), proc("20", "leaf"), proc("40", "leaf")})
	want := []map[string]string{
		{"role": "target", "comm": "latlab", "name": "root"},
		{"role": "target", "comm": "latlab", "name": "leaf", "n": "1"},
		{"role": "target", "comm": "latlab", "name": "leaf", "n": "2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestProbeLabelsDropRoot(t *testing.T) {
	run := []store.ProbePoint{
		{Probe: "process", Series: "rss_bytes", Labels: map[string]string{"pid": "10", "role": "target", "comm": "nginx"}},
		{Probe: "process", Series: "rss_bytes", Labels: map[string]string{"pid": "11", "role": "target", "comm": "nginx", "root": "10"}},
	}
	got := ProbeLabels(run)
	want := []map[string]string{
		{"role": "target", "comm": "nginx", "n": "1"},
		{"role": "target", "comm": "nginx", "n": "2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
