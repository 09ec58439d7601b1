package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latlab/latlab/record"
)

// TestRoundTrip writes a realistic run with warm-up, probes and a profile,
// and reads every part of it back, from the same DB and after reopening
// the file read-only.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	start := time.Now()
	warm := recorded(t, start, 1000, 1)
	res := recorded(t, time.Now(), 5000, 2)
	prov := Provenance{Host: "lab1", Kernel: "Linux 6.8", CPUModel: "EPYC", CPUCount: 8,
		Governor: "performance", LoadAverage: [3]float64{0.5, 0.25, 0.125}, GoVersion: "go1.26",
		LatlabVersion: "v0.1.0", Seed: 42, GitSHA: "abc123",
		Commands: map[string][]string{"external": {"./start-proxy.sh", "./stop-proxy.sh"}}}
	exp, err := db.CreateExperiment(ctx, Experiment{Name: "filter-overhead", Spec: "version: 1\n", Provenance: prov})
	if err != nil {
		t.Fatal(err)
	}
	in := info(Trial{Variant: "filter", Level: record.Level{Rate: 100, Concurrency: 64}, Rep: 3}, 7)
	in.Flags = []Flag{{Name: "trend", Reason: "latency rises 12% over the run"}}
	probes := []ProbePoint{
		{Probe: "process", Series: "cpu_percent", Labels: map[string]string{"node": "root"}, Time: res.Start.Add(-time.Second), Value: 12.5},
		{Probe: "process", Series: "cpu_percent", Labels: map[string]string{"node": "root"}, Time: res.Start.Add(time.Second), Value: 40},
		{Probe: "metrics", Series: "filter_p99_seconds", Time: res.Start.Add(2 * time.Second), Value: 0.004},
	}
	profiles := []Profile{{Target: "root", Kind: "cpu", TakenAt: res.Start.Add(time.Second), Duration: 5 * time.Second,
		Data: []byte{0x1f, 0x8b, 1, 2, 3}, Unit: "nanoseconds",
		Top: []ProfileFunc{{Function: "main.busywork", Flat: 4e9, Cum: 4.5e9}}}}
	id, err := db.WriteRun(ctx, exp.ID, in, res, warm, probes, profiles)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, db *DB) {
		exps, err := db.Experiments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]Experiment{exp}, exps, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("experiments (-want +got):\n%s", diff)
		}
		runs, err := db.Runs(ctx, exp.ID)
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs: %v, %v", runs, err)
		}
		got := runs[0]
		if diff := cmp.Diff(in, got.RunInfo, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("run info (-want +got):\n%s", diff)
		}
		if got.ID != id || got.Mode != "open" || !got.Origin.Equal(res.Start) || got.Interval != res.Interval ||
			got.Samples != int64(len(res.Raw)) || got.SamplesDropped != res.RawDropped {
			t.Errorf("run = %+v", got)
		}
		if diff := cmp.Diff(summarize(t, res), *got.Summary); diff != "" {
			t.Errorf("summary (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(summarize(t, warm), *got.Warmup); diff != "" {
			t.Errorf("warm-up summary (-want +got):\n%s", diff)
		}
		checkIntervals(t, db, id, Measure, res, 0)
		checkIntervals(t, db, id, Warmup, warm, warm.Start.Sub(res.Start))
		checkTotals(t, db, id, Measure, res)
		checkTotals(t, db, id, Warmup, warm)
		checkSteps(t, db, id, res)

		var raw []record.Raw
		if err := db.Samples(ctx, id, func(r record.Raw) error { raw = append(raw, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(res.Raw, raw); diff != "" {
			t.Errorf("samples (-want +got):\n%s", diff)
		}
		gotProbes, err := db.Probes(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wantProbes := []ProbePoint{probes[2], probes[0], probes[1]} // by probe, series, time
		if diff := cmp.Diff(wantProbes, gotProbes, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("probes (-want +got):\n%s", diff)
		}
		gotProfiles, err := db.Profiles(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(profiles, gotProfiles, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("profiles (-want +got):\n%s", diff)
		}
	}
	t.Run("same DB", func(t *testing.T) { check(t, db) })
	db.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	t.Run("reopened read-only", func(t *testing.T) { check(t, ro) })
}

// quantiles are the figures two histograms holding the same values agree on.
func quantiles(h interface {
	TotalCount() int64
	ValueAtPercentile(float64) int64
	Min() int64
	Max() int64
}) []int64 {
	out := []int64{h.TotalCount(), h.Min(), h.Max()}
	for _, q := range []float64{50, 90, 99, 99.9} {
		out = append(out, h.ValueAtPercentile(q))
	}
	return out
}

func checkIntervals(t *testing.T, db *DB, runID int64, phase Phase, r *record.Result, shift time.Duration) {
	t.Helper()
	got, err := db.Intervals(context.Background(), runID, phase)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(r.Intervals) {
		t.Fatalf("%s: %d intervals, want %d", phase, len(got), len(r.Intervals))
	}
	for i, w := range r.Intervals {
		g := got[i]
		if g.Start != w.Start+shift || g.End != w.End+shift || g.Sent != w.Sent || g.Completed != w.Completed ||
			g.Errors != w.Errors || g.Unsuccessful != w.Unsuccessful || g.InFlightMean != w.InFlightMean ||
			g.InFlightMax != w.InFlightMax {
			t.Errorf("%s interval %d = %+v, want %+v shifted by %s", phase, i, g, w, shift)
		}
		for _, k := range []struct {
			name string
			w, g record.Kept
		}{{"latency", w.Latency, g.Latency}, {"service time", w.Service, g.Service}} {
			if diff := cmp.Diff(encoded(t, k.w), encoded(t, k.g)); diff != "" {
				t.Errorf("%s interval %d %s stored other bytes than kept (-want +got):\n%s", phase, i, k.name, diff)
			}
			wh, err := k.w.Histogram()
			if err != nil {
				t.Fatal(err)
			}
			gh, err := k.g.Histogram()
			if err != nil {
				t.Fatalf("%s interval %d %s: %v", phase, i, k.name, err)
			}
			if diff := cmp.Diff(quantiles(wh), quantiles(gh)); diff != "" {
				t.Errorf("%s interval %d %s (-want +got):\n%s", phase, i, k.name, diff)
			}
		}
	}
}

// encoded returns k's encoding as a string, for cmp.Diff.
func encoded(t *testing.T, k record.Kept) string {
	t.Helper()
	b, err := k.Encoded()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// summarize returns r's summary.
func summarize(t *testing.T, r *record.Result) record.Summary {
	t.Helper()
	s, err := record.Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkTotals(t *testing.T, db *DB, runID int64, phase Phase, r *record.Result) {
	t.Helper()
	got, err := db.Totals(context.Background(), runID, phase)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		name      string
		want, got *hdr.Histogram
	}{{"latency", r.Latency, got.Latency}, {"service", r.Service, got.Service}, {"lag", r.Lag, got.Lag},
		{"connect", r.Connect, got.Connect}, {"tls", r.TLS, got.TLS}} {
		if k.got == nil {
			t.Errorf("%s %s histogram missing", phase, k.name)
			continue
		}
		if k.want.TotalCount() == 0 {
			t.Errorf("%s %s histogram of the test run is empty: the test proves nothing", phase, k.name)
		}
		if !k.want.Equals(k.got) {
			t.Errorf("%s %s histogram: got %v, want %v", phase, k.name, quantiles(k.got), quantiles(k.want))
		}
	}
}

func checkSteps(t *testing.T, db *DB, runID int64, r *record.Result) {
	t.Helper()
	got, err := db.Steps(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got) != len(r.StepStats) {
		t.Fatalf("%d steps, want 2", len(got))
	}
	for i, w := range r.StepStats {
		g := got[i]
		if g.Name != w.Name || g.Requests != w.Requests || g.ErrorsTotal != w.ErrorsTotal || g.Unsuccessful != w.Unsuccessful ||
			!cmp.Equal(g.Codes, w.Codes) || !cmp.Equal(g.Errors, w.Errors) ||
			!g.Latency.Equals(w.Latency) || !g.Service.Equals(w.Service) {
			t.Errorf("step %d = %+v, want %+v", i, g, w)
		}
	}
}

// TestProbesBatches writes more probe points than one INSERT takes, with a
// last batch of another size, and reads every one back, in order.
func TestProbesBatches(t *testing.T) {
	ctx := context.Background()
	res := recorded(t, time.Now(), 100, 3)
	n := 3*rowBatch + rowBatch/2 + 1
	points := probePoints(res.Start, n)
	db, id := oneRun(t, "probes", "spec", res, points)
	if got := count(t, db, "SELECT COUNT(*) FROM probes WHERE run_id = ?", id); got != int64(n) {
		t.Fatalf("%d probe rows stored; want %d", got, n)
	}
	want := slices.Clone(points)
	slices.SortStableFunc(want, func(a, b ProbePoint) int {
		return strings.Compare(a.Probe+" "+a.Series, b.Probe+" "+b.Series)
	})
	got, err := db.Probes(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("probes read back (-written +read):\n%s", diff)
	}
}
