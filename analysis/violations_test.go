package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latlab/latlab/store"
)

// judgedCell is the p50 cell of runs whose p50s are ms milliseconds, or
// n/a in na of them besides.
func judgedCell(na int, ms ...float64) Cell {
	c := Cell{Stat: spec.Stats[0], Runs: len(ms) + na, NA: na}
	if na == 0 {
		for _, x := range ms {
			c.Values = append(c.Values, x/1e3)
		}
	}
	c.Median, c.Lo, c.Hi, c.CIOK = MedianCI(c.Values)
	return c
}

// judgedLevel is variant's level at rate with the p50 cell c, counting
// runs ids from first on, each of error ratio errs.
func judgedLevel(variant string, rate float64, c Cell, first int64, errs float64) LevelResult {
	l := LevelResult{Variant: variant, Level: Level{Rate: rate}, Latency: []Cell{c}}
	for i := range c.Runs {
		l.RunIDs = append(l.RunIDs, first+int64(i))
		l.ErrorRatios = append(l.ErrorRatios, errs)
	}
	return l
}

// TestViolations judges made-up levels against p50<10ms and errors<1%:
// on the 95% CI's lower bound from 6 runs, on the lowest run below, on
// the median with strict, and a level without data always breaks it.
func TestViolations(t *testing.T) {
	type row struct {
		Variant, Level, Limit, Judged string
		Value, Bound                  float64
	}
	var levels []LevelResult
	ids := int64(1)
	for _, in := range []struct {
		variant string
		rate    float64
		c       Cell
		errs    float64
	}{
		{"a", 100, judgedCell(0, 11, 12, 13, 14, 15, 16, 17), 0},     // CI [11, 17]: broken
		{"a", 200, judgedCell(0, 5, 6, 7, 12, 13, 14, 15), 0.02},     // CI [5, 15] around 12: strict only
		{"b", 100, judgedCell(0, 11, 12, 13), 0.005},                 // lowest of 3 is 11: broken
		{"b", 200, judgedCell(0, 9, 12, 13), 0},                      // lowest of 3 is 9: strict only
		{"b", 300, judgedCell(2, 1), 0},                              // n/a in 2 of 3 runs
		{"c", 100, Cell{Stat: spec.Stats[0], Median: math.NaN()}, 0}, // no runs counted
	} {
		levels = append(levels, judgedLevel(in.variant, in.rate, in.c, ids, in.errs))
		ids += int64(in.c.Runs)
	}
	slo, err := ParseSLO("p50<10ms,errors<1%")
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	for _, tt := range []struct {
		strict bool
		want   []row
	}{
		{false, []row{
			{"a", "100/s", "p50<10ms", "95% CI lower bound", 0.014, 0.011},
			{"a", "200/s", "errors<1%", "95% CI lower bound", 0.02, 0.02},
			{"b", "100/s", "p50<10ms", "lowest of 3 runs", 0.012, 0.011},
			{"b", "300/s", "p50<10ms", "n/a in 2 of 3 runs", nan, nan},
			{"c", "100/s", "p50<10ms", "no runs counted", nan, nan},
			{"c", "100/s", "errors<1%", "no runs counted", nan, nan},
		}},
		{true, []row{
			{"a", "100/s", "p50<10ms", "median", 0.014, 0.014},
			{"a", "200/s", "p50<10ms", "median", 0.012, 0.012},
			{"a", "200/s", "errors<1%", "median", 0.02, 0.02},
			{"b", "100/s", "p50<10ms", "median", 0.012, 0.012},
			{"b", "200/s", "p50<10ms", "median", 0.012, 0.012},
			{"b", "300/s", "p50<10ms", "n/a in 2 of 3 runs", nan, nan},
			{"c", "100/s", "p50<10ms", "no runs counted", nan, nan},
			{"c", "100/s", "errors<1%", "no runs counted", nan, nan},
		}},
	} {
		var got []row
		for _, v := range Violations(levels, slo, tt.strict) {
			got = append(got, row{v.Variant, v.Level.String(), v.Limit, v.Judged, v.Value, v.Bound})
			if want := map[string]float64{"p50<10ms": 0.01, "errors<1%": 0.01}[v.Limit]; v.Max != want {
				t.Errorf("%s %s %s: max %g, want %g", v.Variant, v.Level, v.Limit, v.Max, want)
			}
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("strict %v (-want +got):\n%s", tt.strict, diff)
		}
	}
	if got := Violations(levels, SLO{}, false); len(got) != 0 {
		t.Errorf("the zero SLO is broken: %+v", got)
	}

	v := JudgeSLO(levels, []string{"c", "a"}, slo, false)
	if len(v.Knees) != 2 || v.Knees[0].Variant != "c" || v.Knees[1].Variant != "a" || len(v.Violations) != 6 || v.Met() {
		t.Errorf("JudgeSLO: knees %+v, %d violations, met %v; want c's and a's, 6, false", v.Knees, len(v.Violations), v.Met())
	}
	if err := v.Err(); err == nil || err.Error() != "SLO p50<10ms,errors<1% broken in 6 row(s)" {
		t.Errorf("Err() = %v", err)
	}
	if v := JudgeSLO(levels, []string{"a"}, SLO{}, true); v.Knees != nil || !v.Met() || v.Err() != nil {
		t.Errorf("JudgeSLO without an SLO: %+v, want no knees and met", v)
	}
}

// TestErrorRatios checks that a level carries the error ratios of the
// runs it counts, and only those, in plan order, and that its error band
// and its errors limit stand on them: a flagged run's high ratio breaks
// nothing.
func TestErrorRatios(t *testing.T) {
	var runs []Run
	for rep, ratio := range []float64{0.03, 0.01, 0.5, 0.02} {
		r := fakeRun("a", Level{Rate: 100}, rep+1, time.Millisecond)
		r.ErrorRatio = ratio
		if ratio == 0.5 {
			r.Flags = []store.Flag{{Name: "trend"}}
		}
		runs = append(runs, r)
	}
	levels := Aggregate(runs, Options{})
	if len(levels) != 1 || !cmp.Equal(levels[0].ErrorRatios, []float64{0.03, 0.01, 0.02}) {
		t.Fatalf("levels %+v; want one with the error ratios 3%%, 1%%, 2%%", levels)
	}
	if lo, hi := levels[0].ErrorBand(); lo != 0.01 || hi != 0.03 {
		t.Errorf("error band [%g, %g]; want [0.01, 0.03]", lo, hi)
	}
	if lo, hi := (LevelResult{}).ErrorBand(); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("error band of no runs [%g, %g]; want NaN", lo, hi)
	}
	for _, tt := range []struct {
		slo    string
		broken bool
	}{{"errors<1%", true}, {"errors<4%", false}} {
		slo, err := ParseSLO(tt.slo)
		if err != nil {
			t.Fatal(err)
		}
		// Three runs: judged on the lowest, 1%, which breaks no limit
		// of 1%; strict, on the median, 2%.
		for _, strict := range []bool{false, true} {
			got := len(Violations(levels, slo, strict)) > 0
			if want := tt.broken && strict; got != want {
				t.Errorf("%s strict %v: broken %v, want %v", tt.slo, strict, got, want)
			}
		}
	}
}
