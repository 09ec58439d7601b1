package analysis

import (
	"fmt"
	"math"
)

// An Interval is a confidence interval of an overhead at Level: [Lo, Hi]
// bounds Diff.Abs and, when the Diff's RelOK, [RelLo, RelHi] bounds
// Diff.Rel. OK is false when the runs are too few for any interval at
// Level; the bounds are then 0.
type Interval struct {
	Level        float64
	Lo, Hi       float64
	RelLo, RelHi float64
	OK           bool
}

// Excludes0 reports whether the interval lies wholly on one side of 0.
func (iv Interval) Excludes0() bool { return iv.OK && (iv.Lo > 0 || iv.Hi < 0) }

// HolmLevel is the confidence at which Holm's correction tests a
// comparison whose p-value p it adjusted to pAdj: the row is significant
// when p < Alpha·p/pAdj, that is when pAdj < Alpha, so the interval at
// 1 − Alpha·p/pAdj excludes 0 exactly when the row is significant. It is
// 1 − Alpha/k for the smallest of k p-values, 1 − Alpha for the largest
// or for a comparison alone, and 0 when p is not a number.
func HolmLevel(p, pAdj float64) float64 {
	switch {
	case math.IsNaN(p) || math.IsNaN(pAdj):
		return 0
	case pAdj <= 0 || p >= pAdj:
		return 1 - Alpha
	}
	return 1 - Alpha*p/pAdj
}

// CI is the interval that goes with d's verdict: at Holm's level once a
// table has corrected d (see Diff.Holm); the 95% interval before, or when
// the runs are too few for any interval at Holm's level (the row is then
// inconclusive: no outcome could make it significant).
func (d Diff) CI() Interval {
	if d.Holm.Level > 0 && (d.Holm.OK || !d.CIOK) {
		return d.Holm
	}
	return Interval{Level: confidence, Lo: d.AbsLo, Hi: d.AbsHi, RelLo: d.RelLo, RelHi: d.RelHi, OK: d.CIOK}
}

// atHolm sets d.Holm from the cells d compared (see compare), once Holm
// has set d.PAdj and d.Significant. An interpolated interval can exclude
// 0 at a level where the exact test does not reject (the observed rank
// lies between the two exact levels it interpolates); its near bound is
// then moved to 0, which only widens it, so that the interval excludes 0
// exactly when d is significant. Ties can leave a significant difference
// with an interval that touches 0; a warning says so.
func (d *Diff) atHolm(vc, bc Cell) {
	level := HolmLevel(d.P, d.PAdj)
	if level == 0 || math.IsNaN(d.Abs) {
		return
	}
	v, b := vc.Values, bc.Values
	interval := shiftAt
	if d.Method == MethodPaired {
		v, b = pairUp(vc, bc)
		interval = centreAt
	}
	iv := Interval{Level: level}
	iv.Lo, iv.Hi, iv.OK = interval(v, b, level)
	if d.RelOK {
		lo, hi, _ := interval(logs(v), logs(b), level)
		iv.RelLo, iv.RelHi = math.Expm1(lo), math.Expm1(hi)
	}
	switch {
	case !iv.OK:
	case iv.Excludes0() && !d.Significant:
		iv.Lo, iv.Hi = math.Min(iv.Lo, 0), math.Max(iv.Hi, 0)
		iv.RelLo, iv.RelHi = math.Min(iv.RelLo, 0), math.Max(iv.RelHi, 0)
	case !iv.Excludes0() && d.Significant:
		d.Warnings = append(d.Warnings, fmt.Sprintf("the %s interval reaches 0 while the test rejects: tied values", levelText(level)))
	}
	d.Holm = iv
}

// shiftAt is the Hodges–Lehmann interval of x against y at level.
func shiftAt(x, y []float64, level float64) (lo, hi float64, ok bool) {
	return shiftInterval(differences(x, y), len(x), len(y), level)
}

// centreAt is the signed-rank interval at level of the centre of the
// pairs' differences x[i] − y[i].
func centreAt(x, y []float64, level float64) (lo, hi float64, ok bool) {
	d := make([]float64, len(x))
	for i := range d {
		d[i] = x[i] - y[i]
	}
	return centreInterval(walsh(d), len(d), level)
}

// levelText writes a confidence level as a percentage with up to three
// significant digits: "95%", "98.3%", "99.4%".
func levelText(level float64) string {
	return fmt.Sprintf("%.3g%%", 100*level)
}
