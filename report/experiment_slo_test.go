package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

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
	slo := analysis.SLO{Latency: []spec.Percentile{{Name: "p50", Q: 0.5, Latency: limit}}}
	for _, strict := range []bool{false, true} {
		r := newFixture(t, exp, ExperimentOptions{SLO: slo, Strict: strict})
		var got []string
		for _, v := range r.Verdict.Violations {
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
