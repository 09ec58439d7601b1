package analysis

import (
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"
)

// TestExpectJudge judges made-up cells: on the 95% CI from 6 runs, on the
// range of the runs below, never on the median alone.
func TestExpectJudge(t *testing.T) {
	ms := func(xs ...float64) []float64 {
		for i := range xs {
			xs[i] /= 1e3
		}
		return xs
	}
	tests := []struct {
		name     string
		values   []float64
		expected float64 // ms
		want     string
		interval string
	}{
		{"inside the CI", ms(1, 2, 3, 4, 5, 6, 7), 4.5, VerdictWithin, "95% CI"},
		{"CI above", ms(1, 2, 3, 4, 5, 6, 7), 0.5, VerdictAbove, "95% CI"},
		{"CI below", ms(1, 2, 3, 4, 5, 6, 7), 7.5, VerdictBelow, "95% CI"},
		{"median off, range covers", ms(1, 2, 3), 2.9, VerdictWithin, "range of 3 runs"},
		{"range above", ms(1, 2, 3), 0.9, VerdictAbove, "range of 3 runs"},
		{"range below", ms(1, 2, 3), 3.1, VerdictBelow, "range of 3 runs"},
		{"one run, equal", ms(2), 2, VerdictWithin, "1 run"},
		{"one run, above", ms(2), 1, VerdictAbove, "1 run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Cell{Stat: spec.Stats[0], Values: tt.values}
			c.Median, c.Lo, c.Hi, c.CIOK = MedianCI(c.Values)
			e := Expectation{Expected: tt.expected / 1e3}
			e.judge(c)
			if e.Verdict != tt.want || e.Interval() != tt.interval {
				t.Errorf("verdict %s on %q [%g, %g]; want %s on %q", e.Verdict, e.Interval(), e.Lo, e.Hi, tt.want, tt.interval)
			}
			if e.Measured != c.Median || e.Runs != len(tt.values) {
				t.Errorf("measured %g of %d runs; want the median %g of %d", e.Measured, e.Runs, c.Median, len(tt.values))
			}
		})
	}
}

// TestExpectations sets a design's expect: beside made-up levels: a row
// per level of an expecting variant and percentile in the design's
// order, none for a variant without expect:, and n/a with the reason for
// a percentile not read, a level without runs and a cell n/a in a run.
func TestExpectations(t *testing.T) {
	ms := func(name string, q float64, d float64) spec.Percentile {
		return spec.Percentile{Name: name, Q: q, Latency: time.Duration(d * float64(time.Millisecond))}
	}
	design := spec.Design{Variants: []spec.VariantDesign{
		{Name: "a", Expect: []spec.Percentile{ms("p50", 0.5, 3), ms("p75", 0.75, 3)}},
		{Name: "b"},
	}}
	within := judgedLevel("a", 100, judgedCell(0, 1, 2, 3, 4, 5, 6, 7), 1, 0)
	na := judgedLevel("a", 200, judgedCell(1, 5), 8, 0)
	none := judgedLevel("a", 300, Cell{Stat: spec.Stats[0]}, 10, 0)
	other := judgedLevel("b", 100, judgedCell(0, 1), 10, 0)
	type row struct{ Variant, Level, Name, Verdict, Interval, Note string }
	var got []row
	for _, e := range Expectations([]LevelResult{within, na, none, other}, design) {
		got = append(got, row{e.Variant, e.Level.String(), e.Name, e.Verdict, e.Interval(), e.Note})
	}
	notRead := "p75 is not among the percentiles read from every run (p50, p90, p95, p99, p99.9, max)"
	want := []row{
		{"a", "100/s", "p50", VerdictWithin, "95% CI", ""},
		{"a", "100/s", "p75", VerdictNA, "", notRead},
		{"a", "200/s", "p50", VerdictNA, "", "n/a in 1 of 2 runs: too few samples"},
		{"a", "200/s", "p75", VerdictNA, "", notRead},
		{"a", "300/s", "p50", VerdictNA, "", "no runs counted"},
		{"a", "300/s", "p75", VerdictNA, "", notRead},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
