package analysis

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// judgedCell is the p50 cell of runs whose p50s are ms milliseconds, or
// n/a in na of them besides.
func judgedCell(na int, ms ...float64) Cell {
	c := Cell{Stat: Stats[0], Runs: len(ms) + na, NA: na}
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
func judgedLevel(variant string, rate float64, c Cell, first int64, errs float64) (LevelResult, []Run) {
	l := LevelResult{Variant: variant, Level: Level{Rate: rate}, Latency: []Cell{c}}
	var runs []Run
	for i := range c.Runs {
		id := first + int64(i)
		l.RunIDs = append(l.RunIDs, id)
		runs = append(runs, Run{ID: id, ErrorRatio: errs})
	}
	return l, runs
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
	var runs []Run
	for _, in := range []struct {
		variant string
		rate    float64
		c       Cell
		errs    float64
	}{
		{"a", 100, judgedCell(0, 11, 12, 13, 14, 15, 16, 17), 0}, // CI [11, 17]: broken
		{"a", 200, judgedCell(0, 5, 6, 7, 12, 13, 14, 15), 0.02}, // CI [5, 15] around 12: strict only
		{"b", 100, judgedCell(0, 11, 12, 13), 0.005},             // lowest of 3 is 11: broken
		{"b", 200, judgedCell(0, 9, 12, 13), 0},                  // lowest of 3 is 9: strict only
		{"b", 300, judgedCell(2, 1), 0},                          // n/a in 2 of 3 runs
		{"c", 100, Cell{Stat: Stats[0], Median: math.NaN()}, 0},  // no runs counted
	} {
		l, rs := judgedLevel(in.variant, in.rate, in.c, int64(len(runs)+1), in.errs)
		levels, runs = append(levels, l), append(runs, rs...)
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
		for _, v := range Violations(levels, runs, slo, tt.strict) {
			got = append(got, row{v.Variant, v.Level.String(), v.Limit, v.Judged, v.Value, v.Bound})
			if want := map[string]float64{"p50<10ms": 0.01, "errors<1%": 0.01}[v.Limit]; v.Max != want {
				t.Errorf("%s %s %s: max %g, want %g", v.Variant, v.Level, v.Limit, v.Max, want)
			}
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("strict %v (-want +got):\n%s", tt.strict, diff)
		}
	}
	if got := Violations(levels, runs, SLO{}, false); len(got) != 0 {
		t.Errorf("the zero SLO is broken: %+v", got)
	}

	v := JudgeSLO(levels, runs, []string{"c", "a"}, slo, false)
	if len(v.Knees) != 2 || v.Knees[0].Variant != "c" || v.Knees[1].Variant != "a" || len(v.Violations) != 6 || v.Met() {
		t.Errorf("JudgeSLO: knees %+v, %d violations, met %v; want c's and a's, 6, false", v.Knees, len(v.Violations), v.Met())
	}
	if err := v.Err(); err == nil || err.Error() != "SLO p50<10ms,errors<1% broken in 6 row(s)" {
		t.Errorf("Err() = %v", err)
	}
	if v := JudgeSLO(levels, runs, []string{"a"}, SLO{}, true); v.Knees != nil || !v.Met() || v.Err() != nil {
		t.Errorf("JudgeSLO without an SLO: %+v, want no knees and met", v)
	}
}
