package analysis

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// hist returns a histogram holding 1..n µs.
func hist(n int) Histogram {
	h := record.NewHistogram()
	for i := 1; i <= n; i++ {
		_ = h.RecordValue(int64(i) * int64(time.Microsecond))
	}
	return h
}

func TestPercentiles(t *testing.T) {
	type row struct {
		Name    string
		OK, Low bool
		Latency time.Duration
	}
	for _, tc := range []struct {
		name  string
		h     Histogram
		want  []row
		warns int
	}{
		{"empty", nil, []row{{"p50", false, false, 0}, {"p90", false, false, 0}, {"p95", false, false, 0},
			{"p99", false, false, 0}, {"p99.9", false, false, 0}, {"max", false, false, 0}}, 6},
		{"100 samples", hist(100), []row{{"p50", true, false, 50 * time.Microsecond},
			{"p90", true, false, 90 * time.Microsecond}, {"p95", true, true, 95 * time.Microsecond},
			{"p99", true, true, 99 * time.Microsecond}, {"p99.9", false, false, 0},
			{"max", true, false, 100 * time.Microsecond}}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, warns := Percentiles(tc.h, "latency")
			var got []row
			for _, v := range vs {
				got = append(got, row{v.Name, v.OK, v.LowConfidence, v.Latency.Truncate(time.Microsecond)}) // HDR reports a bucket's top
				if v.LowConfidence && !(v.Lo <= v.Latency && v.Latency <= v.Hi) {
					t.Errorf("%s = %v outside its interval [%v, %v]", v.Name, v.Latency, v.Lo, v.Hi)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(warns) != tc.warns {
				t.Errorf("got %d warnings %q; want %d", len(warns), warns, tc.warns)
			}
		})
	}
}

// run returns a valid run of variant at rate whose p50 is p50 µs.
func run(id int64, variant string, rate float64, p50 int, flags ...store.Flag) Run {
	r := Run{ID: id, Trial: store.Trial{Variant: variant, Level: record.Level{Rate: rate}}, Status: store.Done, Flags: flags}
	r.RunPercentiles = ReadRun(hist(2*p50), hist(2*p50))
	return r
}

func TestAggregate(t *testing.T) {
	bad := store.Flag{Name: "errors", Reason: "2% errors"}
	// Run 6 lost its histograms: it has no percentiles and counts nowhere.
	lost := Run{ID: 6, Trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 100}}, Status: store.Done,
		Defects: []string{"no latency histogram"}, RunPercentiles: ReadRun(nil, nil)}
	runs := []Run{
		run(1, "plain", 200, 100), run(2, "filter", 100, 70), run(3, "plain", 100, 50),
		run(4, "plain", 100, 60, bad), run(5, "plain", 100, 40), lost,
	}
	type row struct {
		Variant    string
		Level      Level
		RunIDs     []int64
		Excluded   int
		Unreadable []int64
		P50        float64
	}
	for _, tc := range []struct {
		name string
		opt  Options
		want []row
	}{
		{"valid only", Options{}, []row{
			{"plain", Level{Rate: 100}, []int64{3, 5}, 1, []int64{6}, 45e-6},
			{"plain", Level{Rate: 200}, []int64{1}, 0, nil, 100e-6},
			{"filter", Level{Rate: 100}, []int64{2}, 0, nil, 70e-6},
		}},
		{"flagged too", Options{IncludeFlagged: true}, []row{
			{"plain", Level{Rate: 100}, []int64{3, 4, 5}, 0, []int64{6}, 50e-6},
			{"plain", Level{Rate: 200}, []int64{1}, 0, nil, 100e-6},
			{"filter", Level{Rate: 100}, []int64{2}, 0, nil, 70e-6},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []row
			for _, l := range Aggregate(runs, tc.opt) {
				c, _ := l.Cell("p50")
				got = append(got, row{l.Variant, l.Level, l.RunIDs, l.Excluded, l.Unreadable, c.Median})
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0.01, 0)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestKnee(t *testing.T) {
	var runs []Run
	// p50 grows with rate: 20 µs at 100/s, 40 at 200/s, 60 at 300/s,
	// 30 again at 400/s (noise above the knee).
	for i, p50 := range []int{20, 40, 60, 30} {
		for rep := range 3 {
			runs = append(runs, run(int64(10*i+rep), "plain", float64(100*(i+1)), p50))
		}
	}
	levels := Aggregate(runs, Options{})
	errs := 0.01
	at := func(rate float64) *Level { return &Level{Rate: rate} }
	for _, tc := range []struct {
		name string
		slo  SLO
		want Knee
	}{
		{"nothing asked", SLO{}, Knee{Variant: "plain", Met: true, Level: Level{Rate: 400}}},
		{"p50 under 50 µs", SLO{Latency: []spec.Percentile{{Name: "p50", Q: 0.5, Latency: 50 * time.Microsecond}}},
			Knee{Variant: "plain", Met: true, Level: Level{Rate: 200}, Failed: at(300)}},
		{"p50 under 10 µs", SLO{Latency: []spec.Percentile{{Name: "p50", Q: 0.5, Latency: 10 * time.Microsecond}}},
			Knee{Variant: "plain", Failed: at(100)}},
		{"p75 is not read", SLO{Latency: []spec.Percentile{{Name: "p75", Q: 0.75, Latency: time.Second}}},
			Knee{Variant: "plain", Failed: at(100)}},
		{"errors", SLO{Errors: &errs}, Knee{Variant: "plain", Met: true, Level: Level{Rate: 400}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Levels come in any order and other variants' are ignored.
			levels := append(slices.Clone(levels), LevelResult{Variant: "other", Level: Level{Rate: 50}})
			slices.Reverse(levels)
			if diff := cmp.Diff(tc.want, KneeOf(levels, "plain", tc.slo)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := KneeOf(levels, "none", SLO{}); got.Met || got.Failed != nil {
		t.Errorf("a variant without levels: %+v; want neither met nor failed", got)
	}
}

func TestOverheadsHolm(t *testing.T) {
	var runs []Run
	for rep := range 6 {
		runs = append(runs, run(int64(rep), "plain", 100, 100+rep), run(int64(10+rep), "filter", 100, 200+rep))
	}
	cs := Overheads(Aggregate(runs, Options{}), "plain")
	if len(cs) != len(spec.CompareStats) {
		t.Fatalf("got %d comparisons; want %d", len(cs), len(spec.CompareStats))
	}
	for _, c := range cs {
		if c.Name == "p99.9" { // about 200 samples a run: n/a everywhere
			if !math.IsNaN(c.P) || c.Significant || len(c.Warnings) == 0 {
				t.Errorf("p99.9: P %v significant %v warnings %q; want NaN, false and a warning", c.P, c.Significant, c.Warnings)
			}
			continue
		}
		if c.PAdj < c.P || !c.Significant || c.Abs <= 0 {
			t.Errorf("%s: P %v PAdj %v significant %v abs %v; want a significant positive shift, PAdj ≥ P",
				c.Name, c.P, c.PAdj, c.Significant, c.Abs)
		}
	}
}

func TestLoad(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exp, err := db.CreateExperiment(ctx, store.Experiment{Name: "sweep", Spec: "name: sweep\n"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for rep, n := range []int{1000, 50} {
		rec := record.NewRecorder(start, record.Config{})
		for i := range n {
			rec.Sent()
			d := time.Duration(i+1) * time.Microsecond
			rec.Record(0, &record.Sample{Intended: 0, Sent: d / 2, Done: d, Code: 200})
		}
		info := store.RunInfo{Trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 100}, Rep: rep}, Position: rep,
			Status: store.Done, StartedAt: start, EndedAt: start}
		if _, err := db.WriteRun(ctx, exp.ID, info, rec.Stop(), nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Load(ctx, db, exp.ID)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Rep       int
		P50, P999 Value
	}
	var rows []row
	for _, r := range got.Runs {
		p50, _ := Get(r.Latency, "p50")
		p999, _ := Get(r.Latency, "p99.9")
		rows = append(rows, row{r.Rep, p50, p999})
	}
	// HdrHistogram reports the top of a value's bucket (3 significant
	// digits); ranks 997 and 1000 bound p99.9 of 1000 samples, and the
	// upper one is the maximum, so the interval is open.
	want := []row{
		{0, Value{Stat: spec.Stat{Name: "p50", Q: 0.5}, Latency: 500223 * time.Nanosecond, OK: true, Count: 1000},
			Value{Stat: spec.Stat{Name: "p99.9", Q: 0.999}, Latency: 999423 * time.Nanosecond, OK: true, LowConfidence: true,
				Lo: 997375 * time.Nanosecond, Hi: 1000447 * time.Nanosecond, Open: true, Count: 1000}},
		{1, Value{Stat: spec.Stat{Name: "p50", Q: 0.5}, Latency: 25087 * time.Nanosecond, OK: true, Count: 50},
			Value{Stat: spec.Stat{Name: "p99.9", Q: 0.999}, Count: 50}},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("Load percentiles (-want +got):\n%s", diff)
	}
	if len(got.Warnings) == 0 {
		t.Error("Load gave no warnings; want the n/a and low-confidence quantiles named")
	}
}

// TestOverheadsHolmFamilies checks that Holm corrects within one quantile:
// five runs a side, two variants at three rates, every variant run slower
// than every baseline run. Each quantile's family has six rows, so the
// smallest exact p (2/252) stays under 0.05/6 and every row is
// significant; one family over all 24 rows would reject none.
func TestOverheadsHolmFamilies(t *testing.T) {
	var runs []Run
	id := int64(0)
	for _, rate := range []float64{10, 20, 40} {
		for rep := range 5 {
			for i, v := range []string{"plain", "proxy", "filter"} {
				id++
				runs = append(runs, run(id, v, rate, 1000+100*i+rep))
			}
		}
	}
	cs := Overheads(Aggregate(runs, Options{}), "plain")
	perStat := map[string][]float64{}
	for _, c := range cs {
		perStat[c.Name] = append(perStat[c.Name], c.P)
	}
	for _, c := range cs {
		if c.Name == "p99.9" {
			continue
		}
		want := Holm(perStat[c.Name])
		if !slices.Contains(want, c.PAdj) {
			t.Errorf("%s %s %s: PAdj %v is not Holm within its quantile %v", c.Variant, c.Level, c.Name, c.PAdj, want)
		}
		if !c.Significant {
			t.Errorf("%s %s %s: P %v PAdj %v; want significant", c.Variant, c.Level, c.Name, c.P, c.PAdj)
		}
	}
}

// TestOverheadBorderline checks the warning when the interpolated 95%
// interval and the exact test disagree, with per-run p50s (in µs) of a
// real 5-against-5 comparison: one variant run sits among the baseline's,
// so U = 22 of 25 (p = 0.056), while the interval, interpolated between
// the exact 96.8% and 94.4% levels, stays above 0.
func TestOverheadBorderline(t *testing.T) {
	us := func(v ...float64) []float64 {
		for i := range v {
			v[i] *= 1e-6
		}
		return v
	}
	d := Overhead(us(1610.751, 1591.295, 1454.079, 1623.039, 1617.919), us(1523.711, 1406.975, 1390.591, 1498.111, 1510.399))
	if d.Significant || d.AbsLo <= 0 {
		t.Fatalf("p=%.3g, interval [%g, %g]: want a non-significant test and an interval above 0", d.P, d.AbsLo, d.AbsHi)
	}
	if !slices.ContainsFunc(d.Warnings, func(w string) bool {
		return strings.Contains(w, "excludes 0 while the exact test does not reject")
	}) {
		t.Errorf("no borderline warning in %q", d.Warnings)
	}
	clear := Overhead(us(1700, 1710, 1720, 1730, 1740), us(1500, 1510, 1520, 1530, 1540))
	if slices.ContainsFunc(clear.Warnings, func(w string) bool { return strings.Contains(w, "borderline") }) {
		t.Errorf("a clear difference warns %q", clear.Warnings)
	}
}

func TestParseQuantile(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    float64
		ok   bool
	}{
		{"p50", 0.5, true},
		{"p99", 0.99, true},
		{"p99.9", 0.999, true}, // exactly, not 99.9/100
		{"p99.99", 0.9999, true},
		{"p100", 1, true},
		{"p5", 0.05, true},
		{"p0", 0, true},
		{"p999", 9.99, true}, // the caller judges the range
		{"max", 0, false},
		{"p1000", 0, false},
		{"p99.", 0, false},
		{"p99.1234567", 0, false},
		{"P99", 0, false},
	} {
		q, ok := spec.ParseQuantile(tc.name)
		if q != tc.q || ok != tc.ok {
			t.Errorf("spec.ParseQuantile(%q) = %v, %v; want %v, %v", tc.name, q, ok, tc.q, tc.ok)
		}
	}
}
