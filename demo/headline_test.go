package demo

import (
	"math"
	"testing"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"
)

func TestDiffText(t *testing.T) {
	tests := []struct {
		name string
		d    analysis.Diff
		want string
	}{
		{"significant", analysis.Diff{Abs: 0.0101, AbsLo: 0.00995, AbsHi: 0.0103, CIOK: true, Significant: true}, "+10.10ms [+9.950ms, +10.30ms] *"},
		{"interval across zero", analysis.Diff{Abs: 143e-6, AbsLo: -130e-6, AbsHi: 297e-6, CIOK: true}, "+143µs [−130µs, +297µs]"},
		{"no shift", analysis.Diff{CIOK: true, AbsLo: -5e-6, AbsHi: 5e-6}, "0ns [−5.0µs, +5.0µs]"},
		{"too few runs", analysis.Diff{Abs: -65.5e-6, N: 3, BaselineN: 3, Reason: analysis.ReasonFewRuns}, "−65.5µs (CI n/a: 3 against 3 runs)"},
		{"untestable", analysis.Diff{Abs: 143e-6, AbsLo: 130e-6, AbsHi: 297e-6, CIOK: true, N: 5, BaselineN: 5, Reason: analysis.ReasonFewRuns},
			"+143µs [+130µs, +297µs] (untestable: 5 against 5 runs)"},
		{"all flagged", analysis.Diff{Abs: math.NaN(), Reason: analysis.ReasonFlagged}, "n/a: all runs flagged"},
		{"no runs", analysis.Diff{Abs: math.NaN()}, "n/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diffText(tt.d); got != tt.want {
				t.Errorf("diffText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeadlineRows(t *testing.T) {
	c := func(variant string, rate float64, stat string) analysis.Comparison {
		return analysis.Comparison{Variant: variant, Level: analysis.Level{Rate: rate}, Stat: spec.Stat{Name: stat}}
	}
	cs := []analysis.Comparison{
		c("proxy", 10, "p50"), c("proxy", 10, "p90"), c("proxy", 10, "p99"),
		c("proxy", 20, "p50"), // no p90: left out
		c("filter", 10, "p90"), c("filter", 10, "p50"),
	}
	rows := headlineRows(cs)
	var got []string
	for _, r := range rows {
		s := r[0].Variant + " " + r[0].Level.String() + ":"
		for _, x := range r {
			s += " " + x.Name
		}
		got = append(got, s)
	}
	want := []string{"proxy 10/s: p50 p90", "filter 10/s: p50 p90"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("rows %q, want %q", got, want)
	}
}
