package benchcmp

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/perf/benchmath"

	"github.com/latlab/latlab/store"
)

// fakeRun is a done run of variant at level whose every quantile is base
// times 1, 1.5, 2, 3, 4 and 5 in Stats order, plus rep microseconds.
func fakeRun(variant string, l analysis.Level, rep int, base time.Duration) analysis.Run {
	r := analysis.Run{ID: int64(rep), Trial: store.Trial{Variant: variant, Level: l, Rep: rep}, Status: store.Done}
	for i, s := range spec.Stats {
		f := []float64{1, 1.5, 2, 3, 4, 5}[i]
		r.Latency = append(r.Latency, analysis.Value{Stat: s, Latency: time.Duration(f*float64(base)) + time.Duration(rep)*time.Microsecond, OK: true})
	}
	return r
}

// fakeRuns returns reps runs of each variant at each level.
func fakeRuns(base map[string]time.Duration, levels []analysis.Level, reps int) []analysis.Run {
	var out []analysis.Run
	for rep := 1; rep <= reps; rep++ {
		for _, l := range levels {
			for _, v := range []string{"plain", "filter", "proxy", "solo"} {
				if b, ok := base[v]; ok {
					out = append(out, fakeRun(v, l, rep, b))
				}
			}
		}
	}
	return out
}

var (
	r100 = analysis.Level{Rate: 100}
	r200 = analysis.Level{Rate: 200}
	c8   = analysis.Level{Concurrency: 8}
)

func TestCompareRuns(t *testing.T) {
	ms := time.Millisecond
	both := fakeRuns(map[string]time.Duration{"plain": ms, "filter": 2 * ms}, []analysis.Level{r100, r200}, 6)
	more := fakeRuns(map[string]time.Duration{"plain": ms, "filter": 2 * ms, "proxy": 3 * ms}, []analysis.Level{r100, c8}, 6)
	flagged := fakeRuns(map[string]time.Duration{"plain": ms}, []analysis.Level{r100}, 6)
	flagged[0].Flags = []store.Flag{{Name: "trend", Reason: "rising"}}
	flagged[1].Status = store.Interrupted
	flagged[2].Latency[4].OK = false // p99.9 n/a
	flagged[3].Defects, flagged[3].Latency = []string{"no latency histogram"}, nil
	tests := []struct {
		name     string
		old, new RunSet
		opt      RunsOptions
		rows     []string
		notes    []string
		n        int // old samples of the first row's p99.9: 0 when n/a in any run
	}{
		{
			name: "two variants of one experiment",
			old:  RunSet{Name: "r.db:plain", Experiment: "e", Runs: both, Variant: "plain"},
			new:  RunSet{Name: "r.db:filter", Experiment: "e", Runs: both, Variant: "filter"},
			rows: []string{"rate=100/s", "rate=200/s"}, n: 6,
		},
		{
			name: "by name, with a variant and a level on one side",
			old:  RunSet{Name: "a.db", Runs: both},
			new:  RunSet{Name: "b.db", Runs: more},
			rows: []string{"plain/rate=100/s", "filter/rate=100/s"},
			notes: []string{"variant proxy only in b.db", "plain: rate=200/s only in a.db", "plain: c=8 only in b.db",
				"filter: rate=200/s only in a.db", "filter: c=8 only in b.db"},
			n: 6,
		},
		{
			name:  "one variant each, named differently",
			old:   RunSet{Name: "a.db", Runs: fakeRuns(map[string]time.Duration{"solo": ms}, []analysis.Level{c8}, 3)},
			new:   RunSet{Name: "b.db", Runs: fakeRuns(map[string]time.Duration{"plain": ms}, []analysis.Level{c8}, 3)},
			rows:  []string{"c=8"},
			notes: []string{"variant solo of a.db compared with variant plain of b.db"},
			n:     3,
		},
		{
			name: "flagged, unfinished and n/a",
			old:  RunSet{Name: "old.db", Runs: flagged},
			new:  RunSet{Name: "new.db", Runs: both, Variant: "plain"},
			rows: []string{"rate=100/s"},
			notes: []string{"rate=200/s only in new.db", "old.db: 3 of 6 runs left out, flagged, unfinished or with stored data " +
				"missing or inconsistent (trend×1, interrupted×1, unreadable×1)",
				"old.db rate=100/s: p99.9 n/a in 1 of 3 runs (too few samples), so none for the row"},
			n: 0,
		},
		{
			name: "flagged counted",
			old:  RunSet{Name: "old.db", Runs: flagged},
			new:  RunSet{Name: "new.db", Runs: both, Variant: "plain"},
			opt:  RunsOptions{IncludeFlagged: true},
			rows: []string{"rate=100/s"},
			notes: []string{"rate=200/s only in new.db", "old.db: 1 of 6 runs left out, flagged, unfinished or with stored data " +
				"missing or inconsistent (unreadable×1)",
				"old.db rate=100/s: p99.9 n/a in 1 of 5 runs (too few samples), so none for the row"},
			n: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := CompareRuns(tt.old, tt.new, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var units, configs []string
			for _, tab := range c.Tables {
				units = append(units, tab.Unit)
				configs = append(configs, tab.Config[len(tab.Config)-1])
				var rows []string
				for _, r := range tab.Rows {
					rows = append(rows, r.Name)
				}
				if diff := cmp.Diff(tt.rows, rows); diff != "" {
					t.Errorf("%s rows (-want +got):\n%s", tab.Config, diff)
				}
			}
			wantConfigs := []string{"latency: p50 (from intended send)", "latency: p90 (from intended send)",
				"latency: p99 (from intended send)", "latency: p99.9 (from intended send)"}
			if diff := cmp.Diff(wantConfigs, configs); diff != "" {
				t.Errorf("tables (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"sec", "sec", "sec", "sec"}, units); diff != "" {
				t.Errorf("units (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.notes, c.Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			got := 0
			if old := c.Tables[3].Rows[0].Old; old != nil {
				got = old.N
			}
			if got != tt.n {
				t.Errorf("p99.9 %s: %d old samples, want %d", c.Tables[3].Rows[0].Name, got, tt.n)
			}
		})
	}
}

// TestCompareRunsAgreesWithBenchmath checks a row against benchmath fed
// the per-run values directly, and the direction of a known shift.
func TestCompareRunsAgreesWithBenchmath(t *testing.T) {
	ms := time.Millisecond
	runs := fakeRuns(map[string]time.Duration{"plain": ms, "filter": 2 * ms}, []analysis.Level{r100}, 8)
	c, err := CompareRuns(RunSet{Name: "plain", Runs: runs, Variant: "plain"}, RunSet{Name: "filter", Runs: runs, Variant: "filter"}, RunsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var old, new []float64
	for rep := 1; rep <= 8; rep++ {
		old = append(old, (time.Millisecond + time.Duration(rep)*time.Microsecond).Seconds())
		new = append(new, (2*time.Millisecond + time.Duration(rep)*time.Microsecond).Seconds())
	}
	so := benchmath.NewSample(old, &benchmath.DefaultThresholds)
	sn := benchmath.NewSample(new, &benchmath.DefaultThresholds)
	wo, wn := benchmath.AssumeNothing.Summary(so, 0.95), benchmath.AssumeNothing.Summary(sn, 0.95)
	want := []float64{wo.Center, wo.Lo, wo.Hi, wn.Center, wn.Lo, wn.Hi, benchmath.AssumeNothing.Compare(so, sn).P}
	r := c.Tables[0].Rows[0]
	got := []float64{r.Old.Center, r.Old.Lo, r.Old.Hi, r.New.Center, r.New.Lo, r.New.Hi, r.P}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("p50 (-benchmath +latlab):\n%s", diff)
	}
	if !r.Significant || !strings.HasPrefix(r.Delta, "+") || r.Ratio < 1.9 || r.Ratio > 2.1 || r.RatioLo > r.Ratio || r.RatioHi < r.Ratio {
		t.Errorf("p50: delta %s, significant %v, ratio %g [%g, %g]; want about +100%%, significant", r.Delta, r.Significant, r.Ratio, r.RatioLo, r.RatioHi)
	}
}

func TestCompareRunsBadInput(t *testing.T) {
	ms := time.Millisecond
	runs := fakeRuns(map[string]time.Duration{"plain": ms, "filter": 2 * ms}, []analysis.Level{r100}, 2)
	other := fakeRuns(map[string]time.Duration{"proxy": ms, "solo": ms}, []analysis.Level{r100}, 2)
	tests := []struct {
		name     string
		old, new RunSet
		want     string
	}{
		{"unknown variant", RunSet{Name: "r.db:nope", Experiment: "e", Runs: runs, Variant: "nope"}, RunSet{Name: "r.db", Runs: runs},
			`r.db:nope: no variant "nope" in experiment e (it has plain, filter)`},
		{"no runs", RunSet{Name: "a.db", Runs: runs}, RunSet{Name: "b.db"}, "b.db: no runs with a result"},
		{"no variant in common", RunSet{Name: "a.db", Runs: runs}, RunSet{Name: "b.db", Runs: other},
			"no variant in common: a.db has plain, filter; b.db has proxy, solo"},
		{"no level in common", RunSet{Name: "a.db", Runs: runs, Variant: "plain"},
			RunSet{Name: "b.db", Runs: fakeRuns(map[string]time.Duration{"plain": ms}, []analysis.Level{c8}, 2)},
			"no level in common: a.db has rate=100/s; b.db has c=8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompareRuns(tt.old, tt.new, RunsOptions{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
}

// TestCompareSamplesNonFinite writes a comparison whose intervals are
// infinite (too few values) and whose ratios are NaN (zeros): JSON says
// null and CSV leaves the cell empty, where encoding/json would fail.
func TestCompareSamplesNonFinite(t *testing.T) {
	c := CompareSamples("a", "b", []SampleTable{{Unit: "allocs/op", Rows: []SampleRow{
		{Name: "Zero", Old: []float64{0, 0, 0}, New: []float64{1, 2, 3}},
		{Name: "Few", Old: []float64{1, 2}, New: []float64{3, 4}},
	}}}, BenchOptions{})
	var j, csv strings.Builder
	if err := c.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"lo": null`, `"ratio": null`} {
		if !strings.Contains(j.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, j.String())
		}
	}
	for _, bad := range []string{"Inf", "NaN"} {
		if strings.Contains(csv.String(), bad) {
			t.Errorf("CSV holds %s:\n%s", bad, csv.String())
		}
	}
}
