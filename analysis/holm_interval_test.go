package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/latlab/latlab/spec"
)

func TestHolmLevel(t *testing.T) {
	for _, tc := range []struct{ p, pAdj, want float64 }{
		{0.01, 0.03, 1 - 0.05/3},    // the smallest of three
		{0.02, 0.04, 1 - 0.05/2},    // the second of three
		{0.04, 0.04, 0.95},          // the largest
		{0.5, 1, 1 - 0.05*0.5},      // capped at 1
		{0.3, 0.3, 0.95},            // alone
		{math.NaN(), math.NaN(), 0}, // no test
	} {
		if got := HolmLevel(tc.p, tc.pAdj); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("HolmLevel(%v, %v) = %v, want %v", tc.p, tc.pAdj, got, tc.want)
		}
	}
}

// holmTable returns a table of three variants against base at one level,
// eight runs each, unpaired: a shifted by 1 ms (clearly significant), b
// by shiftB, c not at all.
func holmTable(shiftB float64) []Comparison {
	base := []float64{10, 10.4, 9.7, 10.9, 9.2, 10.1, 9.9, 10.6}
	cell := func(shift float64) []Cell {
		vs := make([]float64, len(base))
		for i, v := range base {
			vs[i] = (v + shift + 0.05*float64(i%3)) / 1000
		}
		return []Cell{{Stat: spec.Stat{Name: "p50", Q: 0.5}, Values: vs}}
	}
	var levels []LevelResult
	for _, v := range []struct {
		name  string
		shift float64
	}{{"base", 0}, {"a", 1}, {"b", shiftB}, {"c", 0}} {
		levels = append(levels, LevelResult{Variant: v.name, Level: Level{Rate: 100}, Latency: cell(v.shift)})
	}
	var out []Comparison
	for _, c := range Overheads(levels, "base") {
		if c.Name == "p50" {
			out = append(out, c)
		}
	}
	return out
}

// TestHolmIntervalAgrees checks that a row p < 0.05 leaves short of
// significance after Holm shows an interval at Holm's level that reaches
// 0, named by that level, where its 95% interval does not.
func TestHolmIntervalAgrees(t *testing.T) {
	// Search the shift of b for a row significant before Holm, not after.
	var row Comparison
	for shift := 0.1; shift < 1; shift += 0.01 {
		if c := holmTable(shift)[1]; c.P < Alpha && !c.Significant && (c.AbsLo > 0 || c.AbsHi < 0) {
			row = c
			break
		}
	}
	if row.Variant == "" {
		t.Fatal("no shift of b gives p < 0.05 before Holm and not after, with a 95% interval off 0")
	}
	iv := row.CI()
	if want := 1 - Alpha*row.P/row.PAdj; iv.Level != want || row.Holm != iv {
		t.Errorf("CI() = %+v, want Holm's interval at level %v", iv, want)
	}
	if !iv.OK || iv.Excludes0() {
		t.Errorf("interval at Holm's level %+v excludes 0 on a row not significant after Holm (p=%.3g, adjusted %.3g)", iv, row.P, row.PAdj)
	}
	if iv.Lo > row.AbsLo || iv.Hi < row.AbsHi {
		t.Errorf("interval at Holm's level %+v is not wider than the 95%% one [%v, %v]", iv, row.AbsLo, row.AbsHi)
	}
	if got := row.Diff.String(); !strings.HasPrefix(got, "no detectable difference ("+levelText(iv.Level)+" CI ") {
		t.Errorf("verdict %q, want no detectable difference with the %s CI", got, levelText(iv.Level))
	}
	a := holmTable(0.5)[0]
	if !a.Significant || !a.CI().Excludes0() || !strings.Contains(a.Diff.String(), levelText(a.Holm.Level)+" CI +") {
		t.Errorf("a: significant %v, CI %+v, verdict %q; want significant with an interval above 0 named by its level", a.Significant, a.CI(), a.Diff.String())
	}
}

// TestCIAlone checks that a comparison no table corrected shows its 95%
// interval.
func TestCIAlone(t *testing.T) {
	d := Overhead([]float64{2, 2.1, 2.2, 2.3, 2.4}, []float64{1, 1.1, 1.2, 1.3, 1.4})
	if iv := d.CI(); iv.Level != 0.95 || iv.Lo != d.AbsLo || iv.Hi != d.AbsHi || !iv.OK {
		t.Errorf("CI() = %+v, want the 95%% interval [%v, %v]", iv, d.AbsLo, d.AbsHi)
	}
	if !strings.Contains(d.String(), "95% CI +") {
		t.Errorf("verdict %q, want the 95%% CI", d.String())
	}
}
