package plot

import (
	"math"
	"testing"
)

// FuzzBarsSVG draws bar charts from arbitrary values, whiskers, scales and
// ends and checks that the output is well-formed and free of NaN and Inf.
func FuzzBarsSVG(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 0.5, 1.5, uint8(0), 0.0, 10.0, "a")
	f.Add(-1e300, 1e300, math.NaN(), math.Inf(1), 0.0, uint8(0x37), 5.0, -5.0, "<&>\x00")
	f.Add(1e-9, 0.0, -1.0, 1e-300, 1e300, uint8(0xd1), 0.5, 0.5, "")
	f.Fuzz(func(t *testing.T, a, b, c, lo, hi float64, mode uint8, min, max float64, label string) {
		ch := &Bars{
			Title:      label,
			Categories: []string{label, "b", "c"},
			Value:      Axis{Label: label, Scale: Scale(mode % 3), Unit: Unit(mode / 3 % 5), ZeroBased: mode&16 != 0},
			Series: []BarSeries{
				{Name: label, Values: []float64{a, b, c}, Lo: []float64{lo, hi}, Hi: []float64{hi, lo, a}, Color: -1},
				{Name: "x", Values: []float64{c, a}, Color: int(mode) - 128},
			},
			Width: int(mode) * 4,
		}
		if mode&32 != 0 {
			ch.Value.Min, ch.Value.Max = &min, &max
		}
		parseSVG(t, ch.SVG())
	})
}
