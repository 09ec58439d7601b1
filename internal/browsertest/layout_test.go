package browsertest

import (
	"strings"
	"testing"
)

// TestBarLabelPlace checks where a bar's value label may sit: at the bar's
// end, inside or past it, or past its whisker, where a short bar with a
// long whisker has it; anywhere else is a violation.
func TestBarLabelPlace(t *testing.T) {
	bar := func(end, reach, left, right float64) BarBox {
		return BarBox{Plot: "p", Label: "1µs", Width: 100, End: end, Reach: reach,
			LabelLeft: left, LabelRight: right, Left: 0, Right: 800}
	}
	for _, tt := range []struct {
		name string
		b    BarBox
		ok   bool
	}{
		{"past the bar", bar(246, 246, 250, 284), true},
		{"inside the bar's end", bar(246, 300, 210, 242), true},
		{"past the whisker", bar(246, 402, 406, 440), true},
		{"past no whisker", bar(246, 246, 406, 440), false},
		{"short of the whisker", bar(246, 500, 406, 440), false},
		{"before the bar's end", bar(246, 246, 100, 140), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Page{Layout: Layout{Viewport: 1000, ScrollWidth: 1000, Bars: []BarBox{tt.b}}}.Violations()
			if got := len(v) == 0; got != tt.ok {
				t.Errorf("violations %q, want none: %v", v, tt.ok)
			}
			if !tt.ok && (len(v) != 1 || !strings.Contains(v[0], "neither at its bar's end")) {
				t.Errorf("violations %q, want the label named away from its bar and whisker", v)
			}
		})
	}
}
