package plot

import (
	"math"
	"testing"
)

// FuzzSVG draws charts from arbitrary values, scales and styles and checks
// that the output is well-formed and free of NaN and Inf.
func FuzzSVG(f *testing.F) {
	f.Add(0.0, 1.0, 2.0, 3.0, 0.5, 1.5, uint8(0), uint8(0), 0.0, 10.0)
	f.Add(-1e300, 1e300, math.NaN(), math.Inf(1), 0.0, 0.0, uint8(0x12), uint8(0x31), 5.0, -5.0)
	f.Add(0.9, 0.999, 0.99999, 1e-9, 0.1, 1e-300, uint8(0x21), uint8(0x42), 0.5, 0.5)
	f.Fuzz(func(t *testing.T, a, b, c, d, lo, hi float64, scales, styles uint8, min, max float64) {
		ch := &Chart{
			Title: "fuzz",
			X:     Axis{Scale: Scale(scales % 3), Unit: Unit(scales / 3 % 5)},
			Y:     Axis{Scale: Scale(scales / 16 % 3), Unit: Unit(styles / 16 % 5), ZeroBased: styles&8 != 0},
			Series: []Series{
				{Name: "a", Points: []Point{{a, b}, {b, c}, {c, d}}, Lo: []float64{lo, lo, hi}, Hi: []float64{hi, hi, lo}, Style: Style(styles % 4)},
				{Name: "b", Points: []Point{{d, a}, {a, a}}, Style: Style(styles / 4 % 4), Color: -1},
			},
			Shade: []Span{{From: min, To: max, Label: "s"}},
			Rules: []Rule{{Y: c, Label: "r"}},
		}
		if styles&128 != 0 {
			ch.Y.Min, ch.Y.Max = &min, &max
		}
		if styles&64 != 0 {
			ch.X.Min = &lo
		}
		parseSVG(t, ch.SVG())
	})
}
