package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// TestProbeGaps checks that every probe that said it could not measure
// is named once per variant, with the runs it failed in out of the
// variant's counted runs and its first error, and that a probe that
// measured is not.
func TestProbeGaps(t *testing.T) {
	at := time.Unix(1e9, 0)
	down := func(probe, subject, err string) store.ProbePoint {
		l := map[string]string{"error": err}
		if probe == "metrics" {
			l["instance"] = subject
		} else {
			l["comm"] = subject
		}
		return store.ProbePoint{Probe: probe, Series: "up", Labels: l, Time: at}
	}
	up := store.ProbePoint{Probe: "metrics", Series: "up", Labels: map[string]string{"instance": "http://a/metrics"}, Time: at, Value: 1}
	levels := []analysis.LevelResult{
		{Variant: "chain", RunIDs: []int64{1, 2}},
		{Variant: "chain", RunIDs: []int64{3}},
		{Variant: "proxy", RunIDs: []int64{4, 5}},
	}
	points := map[int64][]store.ProbePoint{
		1: {up, down("process", "pods of chain", "no metrics API"), down("process", "pods of chain", "no metrics API")},
		2: {up, down("process", "pods of chain", "no metrics API (again)")},
		3: {up, down("metrics", "http://b/metrics", "connection refused")},
		4: {up},
		5: {up, {Probe: "metrics", Series: "up", Labels: map[string]string{"instance": "x"}, Time: at}}, // 0 without a reason: not a failure to measure
		6: {down("process", "pods of proxy", "uncounted run")},
	}
	got := probeGaps(levels, points)
	want := []string{
		"chain: the process probe of pods of chain failed in 2 of 3 counted run(s), e.g.: no metrics API",
		"chain: the metrics probe of http://b/metrics failed in 1 of 3 counted run(s), e.g.: connection refused",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestProbePodsMemory checks that the process table names a pod's memory
// as the working set it is, and a process's as its resident set.
func TestProbePodsMemory(t *testing.T) {
	stat := func(series string, labels map[string]string) analysis.ProbeStat {
		return analysis.ProbeStat{Variant: "v", Probe: "process", Series: series, Labels: labels, Median: 50, Max: 60, Runs: 1, Points: 1}
	}
	proc := map[string]string{"role": "target", "comm": "nginx"}
	pod := map[string]string{"role": "target", "comm": "front", "pod": "front-1"}
	tables := probeSummaryTables([]analysis.ProbeStat{stat("cpu_allowed_percent", proc), stat("rss_bytes", proc)})
	i := slices.IndexFunc(tables, func(t probeTable) bool { return strings.HasPrefix(t.caption, "Processes") })
	if i < 0 || tables[i].head[5] != "rss max" {
		t.Fatalf("processes only: tables %+v; want a Processes table with rss max", tables)
	}
	tables = probeSummaryTables([]analysis.ProbeStat{stat("cpu_allowed_percent", proc), stat("rss_bytes", proc),
		stat("cpu_allowed_percent", pod), stat("working_set_bytes", pod)})
	i = slices.IndexFunc(tables, func(t probeTable) bool { return strings.HasPrefix(t.caption, "Processes") })
	if i < 0 || tables[i].head[5] != "memory max" || !strings.Contains(tables[i].caption, "working set") || len(tables[i].rows) != 2 {
		t.Fatalf("with pods: tables %+v; want a table of 2 rows, memory max, its caption naming the working set", tables)
	}
	for _, row := range tables[i].rows {
		if row[5] == "" {
			t.Errorf("row %q has no memory", row)
		}
	}
}
