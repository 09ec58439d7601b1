package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

func ratio(x float64) *float64 { return &x }

func lim(name string, q float64, d time.Duration) analysis.Percentile {
	return analysis.Percentile{Name: name, Q: q, Latency: d}
}

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in      string
		want    analysis.SLO
		wantErr string
	}{
		{"", analysis.SLO{}, ""},
		{"p99<50ms", analysis.SLO{Latency: []analysis.Percentile{lim("p99", 0.99, 50*time.Millisecond)}}, ""},
		{" p99.9 < 200ms , p50<1ms, errors<1% ", analysis.SLO{Latency: []analysis.Percentile{
			lim("p50", 0.5, time.Millisecond), lim("p99.9", 0.999, 200*time.Millisecond)}, Errors: ratio(0.01)}, ""},
		{"max<1s,errors<0%", analysis.SLO{Latency: []analysis.Percentile{lim("max", 1, time.Second)}, Errors: ratio(0)}, ""},
		{"p50<330µs", analysis.SLO{Latency: []analysis.Percentile{lim("p50", 0.5, 330*time.Microsecond)}}, ""},
		{"p75<1ms", analysis.SLO{}, "p75 is not a reported quantile"},
		{"p99>1ms", analysis.SLO{}, "want NAME<LIMIT"},
		{"p99<", analysis.SLO{}, "want NAME<LIMIT"},
		{"p99<fast", analysis.SLO{}, "positive duration"},
		{"p99<-1ms", analysis.SLO{}, "positive duration"},
		{"errors<1", analysis.SLO{}, "percentage"},
		{"errors<101%", analysis.SLO{}, "percentage"},
		{"p99<1ms,p99<2ms", analysis.SLO{}, "limited twice"},
		{"p99<1ms,", analysis.SLO{}, "want NAME<LIMIT"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSLO(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v; want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if back, err := ParseSLO(FormatSLO(got)); err != nil || !cmp.Equal(back, got) {
				t.Errorf("FormatSLO %q does not parse back: %v", FormatSLO(got), err)
			}
		})
	}
}

func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99<50ms", "p50<1ms,p99.9<1s,errors<1%", "max<2s", "errors<0.5%", "p99<", ",", "errors<%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s)
		if err != nil {
			return
		}
		back, err := ParseSLO(FormatSLO(slo))
		if err != nil {
			t.Fatalf("FormatSLO(ParseSLO(%q)) = %q: %v", s, FormatSLO(slo), err)
		}
		if !cmp.Equal(back, slo) {
			t.Errorf("round trip of %q: %+v, then %+v", s, slo, back)
		}
		if e := slo.Errors; e != nil && !(*e >= 0 && *e <= 1) {
			t.Errorf("%q: error ratio %v out of [0, 1]", s, *e)
		}
	})
}

// TestExperimentSLOStrict puts a p50 limit between the CI's lower bound and
// the median of the slowest level: only the strict judgement breaks it.
func TestExperimentSLOStrict(t *testing.T) {
	exp := fixture(t)
	probe := newFixture(t, exp, ExperimentOptions{})
	var cell analysis.Cell
	for _, l := range probe.Levels {
		if l.Variant == "proxy" && l.Rate == 200 {
			cell, _ = l.Cell("p50")
		}
	}
	if !cell.CIOK || cell.Median-cell.Lo < 1e-6 {
		t.Fatalf("proxy 200/s p50 %+v: want a CI whose lower bound is clearly below the median", cell)
	}
	limit := time.Duration(math.Round((cell.Lo + cell.Median) / 2 * 1e9))
	slo := analysis.SLO{Latency: []analysis.Percentile{{Name: "p50", Q: 0.5, Latency: limit}}}
	for _, strict := range []bool{false, true} {
		r := newFixture(t, exp, ExperimentOptions{SLO: slo, Strict: strict})
		var got []string
		for _, v := range r.Violations {
			got = append(got, v.Variant+" "+v.Level.String()+" "+v.Judged)
		}
		var want []string
		if strict {
			want = []string{"proxy 200/s c=64 median"}
		}
		if !cmp.Equal(got, want) {
			t.Errorf("strict %v, p50<%s: violations %q; want %q", strict, limit, got, want)
		}
	}
}

// synthetic returns an experiment of two variants at four rates, with
// runs per variant and rate of 200 requests each: the variant's base plus
// 0 to 199 µs, plus 10 µs per repetition. Four rates make 16 comparisons.
func synthetic(runs int, base map[string]time.Duration) *analysis.Experiment {
	exp := &analysis.Experiment{Experiment: store.Experiment{ID: 1, Name: "few"}}
	id := int64(0)
	for _, v := range []string{"a", "b"} {
		for _, rate := range []float64{100, 200, 300, 400} {
			for rep := range runs {
				h := record.NewHistogram()
				for i := range 200 {
					_ = h.RecordValue(int64(base[v] + time.Duration(i+10*rep)*time.Microsecond))
				}
				id++
				exp.Runs = append(exp.Runs, analysis.Run{ID: id, Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate}, Rep: rep + 1},
					Status: store.Done, Requests: 200, Achieved: rate, RunPercentiles: analysis.ReadRun(h, h)})
			}
		}
	}
	return exp
}

func TestExperimentFewRuns(t *testing.T) {
	base := map[string]time.Duration{"a": time.Millisecond, "b": 2 * time.Millisecond}
	for _, tt := range []struct {
		runs int
		warn bool
	}{{3, true}, {5, false}} {
		r := newFixture(t, synthetic(tt.runs, base), ExperimentOptions{})
		warned := strings.Contains(strings.Join(r.Warnings, "\n"), "no overhead can come out significant")
		if warned != tt.warn {
			t.Errorf("%d runs a side: warned %v; want %v; warnings:\n%s", tt.runs, warned, tt.warn, strings.Join(r.Warnings, "\n"))
		}
		sig := 0
		for _, c := range r.Overheads {
			if c.Significant {
				sig++
			}
		}
		// p99.9 is n/a from 200 samples: 12 rows have a test.
		if tt.warn && sig != 0 || !tt.warn && sig != 12 {
			t.Errorf("%d runs a side: %d of %d rows significant", tt.runs, sig, len(r.Overheads))
		}
	}
}
