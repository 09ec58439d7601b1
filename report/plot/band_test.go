package plot

import (
	"math"
	"testing"
)

// TestLoneBandLeavesAxis checks that a band at a point with no band
// beside it, which is not drawn, does not stretch the y axis, and that a
// band drawn between two points does.
func TestLoneBandLeavesAxis(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		name   string
		lo     []float64
		wantLo float64
	}{
		{"lone", []float64{-0.040, nan, nan}, 0.008},
		{"drawn", []float64{-0.040, -0.030, nan}, -0.040},
	} {
		c := &Chart{Y: Axis{Unit: Seconds}, Series: []Series{{
			Points: []Point{{X: 1, Y: 0.010}, {X: 2, Y: 0.008}, {X: 3, Y: 0.012}},
			Lo:     tt.lo, Hi: []float64{0.060, 0.050, nan},
		}}}
		p := newPlan(c)
		if p.ye.lo != tt.wantLo {
			t.Errorf("%s: the y data range starts at %g; want %g", tt.name, p.ye.lo, tt.wantLo)
		}
	}
}
