package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
	"github.com/latlab/latlab/store"
)

// TestLabelText checks how a label set is named in tables and legends.
func TestLabelText(t *testing.T) {
	for _, tt := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"role": "target", "comm": "latlab", "n": "1"}, "target latlab #1"},
		{map[string]string{"role": "target", "comm": "latlab", "name": "leaf"}, "target leaf (latlab)"},
		{map[string]string{"role": "target", "comm": "nginx", "name": "proxied", "n": "2"}, "target proxied (nginx) #2"},
		{map[string]string{"role": "latlab", "comm": "latlab"}, "load generator"}, {map[string]string{"comm": "nginx"}, "nginx"},
		{map[string]string{"route": "/", "code": "200"}, "code=200 route=/"}, {nil, ""},
	} {
		if got := labelText(tt.labels); got != tt.want {
			t.Errorf("labelText(%v) = %q; want %q", tt.labels, got, tt.want)
		}
	}
}

// richWithProbes opens the rich fixture and builds its report with the
// probes read, and its detail.
func richWithProbes(t *testing.T) (*Experiment, *Detail, *store.DB) {
	t.Helper()
	ctx := context.Background()
	path, err := loadRich()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	exp, err := loadDesigned(ctx, db, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewExperiment(exp, ExperimentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Probes != nil {
		t.Fatalf("%d probe stats before LoadProbes; want nil", len(r.Probes))
	}
	if err := r.LoadProbes(ctx, db); err != nil {
		t.Fatal(err)
	}
	d, err := LoadDetail(ctx, db, r, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r, d, db
}

// TestProbeSummary checks the rich fixture's probe summary against its
// stored points, as the detail read them: every series of every counted
// run, each run reduced to its median and maximum, the medians' median
// and the highest maximum; flagged runs and liveness left out, pids and a
// lone instance too.
func TestProbeSummary(t *testing.T) {
	r, d, _ := richWithProbes(t)
	stored := map[int64][]store.ProbePoint{}
	for _, run := range d.Runs {
		stored[run.ID] = run.Probes
	}
	type key struct{ variant, level, series, labels string }
	want := map[key][2]float64{}
	runs := map[key]int{}
	for _, l := range r.Levels {
		perRun := map[key][][]float64{}
		for _, id := range l.RunIDs {
			points, ok := stored[id]
			if !ok || len(points) == 0 {
				t.Fatalf("run %d: %d probe points in the detail; the fixture gives every run some", id, len(points))
			}
			vals := map[key][]float64{}
			for _, p := range points {
				if p.Series == "up" {
					continue
				}
				labels := map[string]string{}
				for k, v := range p.Labels {
					if k != "pid" && k != "instance" {
						labels[k] = v
					}
				}
				k := key{l.Variant, l.Level.String(), p.Series, fmt.Sprint(labels)}
				vals[k] = append(vals[k], p.Value)
			}
			for k, vs := range vals {
				perRun[k] = append(perRun[k], vs)
			}
		}
		for k, rs := range perRun {
			var meds []float64
			hi := rs[0][0]
			for _, vs := range rs {
				meds = append(meds, analysis.Median(vs))
				hi = max(hi, slices.Max(vs))
			}
			med := analysis.Median(meds)
			if strings.HasSuffix(k.series, ":p100") {
				// A p100 is a bucket's bound: the upper of two middle
				// values, never their mean, at both steps.
				upper := func(xs []float64) float64 { s := slices.Sorted(slices.Values(xs)); return s[len(s)/2] }
				meds = meds[:0]
				for _, vs := range rs {
					meds = append(meds, upper(vs))
				}
				med = upper(meds)
			}
			want[k], runs[k] = [2]float64{med, hi}, len(rs)
		}
	}
	got := map[key][2]float64{}
	for _, p := range r.Probes {
		k := key{p.Variant, p.Level.String(), p.Series, fmt.Sprint(p.Labels)}
		got[k] = [2]float64{p.Median, p.Max}
		if p.Runs != runs[k] {
			t.Errorf("%v: %d runs; want %d", k, p.Runs, runs[k])
		}
		if p.Variant == "filter" && p.Rate == 400 {
			t.Errorf("%v: summarised from flagged runs", k)
		}
	}
	if len(got) != len(r.Probes) {
		t.Errorf("%d probe stats for %d distinct series", len(r.Probes), len(got))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe stats (-want +got):\n%s", diff)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Probes []ProbeJSON `json:"probes"`
	}
	if err := json.Unmarshal(b.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Probes) != len(r.Probes) {
		t.Errorf("JSON has %d probes; want %d", len(j.Probes), len(r.Probes))
	}
}

// TestProbeText pins the probe tables of the rich fixture's text report.
func TestProbeText(t *testing.T) {
	r, _, _ := richWithProbes(t)
	var b strings.Builder
	r.probeText(&b)
	checkGolden(t, "probes.txt", b.String())
	var all strings.Builder
	if err := r.WriteText(&all); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(all.String(), b.String()) {
		t.Errorf("the text report lacks its probe tables")
	}
}

// TestProbeChartsSplit checks that a plot of more lines than a legend
// holds is drawn once per variant, and that lines one variant still has
// beyond the cap are counted in the plot and named in the notes.
func TestProbeChartsSplit(t *testing.T) {
	r := &Experiment{variants: []string{"a", "b"}}
	plotOf := func(variants []int, n int) *probePlot {
		pl := &probePlot{title: "observations per second", family: "f_seconds", kind: ratePlot}
		for _, v := range variants {
			for i := range n {
				pl.lines = append(pl.lines, &probeLine{variant: v, sub: fmt.Sprintf("route=/%02d", i), pts: []plot.Point{{X: 120, Y: 1}}}) // past the 1m window
			}
		}
		return pl
	}
	charts, notes := r.probePlotCharts(plotOf([]int{0, 1}, 8))
	if len(charts) != 2 || len(notes) != 0 {
		t.Fatalf("16 lines of 2 variants: %d charts, notes %q; want 2, none", len(charts), notes)
	}
	for i, c := range charts {
		if len(c.Series) != 8 || c.Note != "" || !strings.HasSuffix(c.Title, "("+r.variants[i]+")") {
			t.Errorf("chart %d: %q, %d series, note %q; want variant %s's 8 lines", i, c.Title, len(c.Series), c.Note, r.variants[i])
		}
	}
	if charts[0].ID == charts[1].ID {
		t.Errorf("both charts have id %s", charts[0].ID)
	}
	charts, notes = r.probePlotCharts(plotOf([]int{1}, maxProbeSeries+2))
	if len(charts) != 1 || len(charts[0].Series) != maxProbeSeries {
		t.Fatalf("%d lines of one variant: %d charts; want one of %d lines", maxProbeSeries+2, len(charts), maxProbeSeries)
	}
	if want := fmt.Sprintf("%d of %d series drawn", maxProbeSeries, maxProbeSeries+2); !strings.Contains(charts[0].Note, want) {
		t.Errorf("note %q; want it to say %q", charts[0].Note, want)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "route=/12, route=/13") {
		t.Errorf("notes %q; want the two lines left out named", notes)
	}
}

// TestProbeNotDrawnForObservers checks that a graph node's answers to
// scrapes and health checks are not drawn.
func TestProbeNotDrawnForObservers(t *testing.T) {
	for _, route := range []string{"/", "/metrics", "/healthz", "/debug/pprof/"} {
		p := store.ProbePoint{Probe: "metrics", Series: "latlab_server_request_duration_seconds:p99",
			Labels: map[string]string{"route": route, "service": "root"}}
		if got, want := probeDrawn(p), route == "/"; got != want {
			t.Errorf("route %s drawn: %v, want %v", route, got, want)
		}
	}
}

// TestProbeBucketTable lays out a classic histogram's quantiles with their
// interval over runs, and after them the bucket each fell in; the +Inf
// bucket reads as "> its lower bound", and the bucket table's p100 cells
// are buckets, not the "≤" bound of the quantile table.
func TestProbeBucketTable(t *testing.T) {
	l := analysis.Level{Concurrency: 9}
	stat := func(series string, median float64) analysis.ProbeStat {
		return analysis.ProbeStat{Variant: "apf", Level: l, Probe: "metrics", Series: series,
			Labels: map[string]string{"filter": "apf"}, Median: median, Max: median, Runs: 6}
	}
	p99 := stat("f_seconds:p99", 0.00025)
	p99.Lo, p99.Hi, p99.CIOK = 0.0002, 0.0003, true
	stats := []analysis.ProbeStat{
		stat("f_seconds:p50", 0.00005), p99, stat("f_seconds:p100", 20),
		stat("f_seconds:p50:bucket_lo", 0), stat("f_seconds:p50:bucket_hi", 0.0001),
		stat("f_seconds:p99:bucket_lo", 0.0001), stat("f_seconds:p99:bucket_hi", 0.0003),
		stat("f_seconds:p100:bucket_lo", 10),
	}
	tables := probeSummaryTables(stats)
	if len(tables) != 2 {
		t.Fatalf("%d tables, want the quantiles and their buckets: %+v", len(tables), tables)
	}
	q, b := tables[0], tables[1]
	if want := []string{"apf", "c=9", "filter=apf", "50.0µs", "250µs [200µs, 300µs]", "20.000s", "20.000s"}; !slices.Equal(q.rows[0], want) {
		t.Errorf("quantile row %q, want %q", q.rows[0], want)
	}
	if want := []string{"apf", "c=9", "filter=apf", "(0, 100µs]", "(100µs, 300µs]", "> 10.000s"}; !slices.Equal(b.rows[0], want) {
		t.Errorf("bucket row %q, want %q", b.rows[0], want)
	}
	if !q.bounds || b.bounds {
		t.Errorf("bounds: quantiles %v, buckets %v; want only the quantiles' p100 marked", q.bounds, b.bounds)
	}
}
