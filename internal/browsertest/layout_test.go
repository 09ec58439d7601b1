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
		return BarBox{Plot: "p", Label: "1µs", Width: 100, End: end, Reach: reach, Start: end - 100, ReachLeft: end - 100,
			LabelLeft: left, LabelRight: right, Left: 0, Right: 800}
	}
	// A bar going left, from 600 to 500, its whisker to reachLeft.
	leftBar := func(reachLeft, left, right float64) BarBox {
		return BarBox{Plot: "p", Label: "-1µs", Width: 100, End: 600, Reach: 600, Start: 500, ReachLeft: reachLeft,
			LabelLeft: left, LabelRight: right, Left: 0, Right: 800}
	}
	// The bars' area starts at 480: a 36 px label does not fit left of 500.
	noRoom := func(b BarBox) BarBox { b.AreaLeft = 480; return b }
	just := func(b BarBox) BarBox { b.AreaLeft = 455; return b }
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
		{"left of a bar going left", leftBar(500, 456, 496), true},
		{"left of the whisker of a bar going left", leftBar(380, 336, 376), true},
		{"far left of a bar going left", leftBar(500, 100, 140), false},
		{"right of a bar going left", leftBar(500, 604, 640), false},
		{"right of a bar going left with no room on its left", noRoom(leftBar(500, 604, 640)), true},
		{"far right of a bar going left with no room on its left", noRoom(leftBar(500, 704, 740)), false},
		// The area starts at 455: 5 px to spare on the left, within what
		// the chart's estimate of a label's width may be off by.
		{"right of a bar going left with just room on its left", just(leftBar(500, 604, 640)), true},
		{"left of a bar going left with just room on its left", just(leftBar(500, 459, 495)), true},
		{"far right of a bar going left with just room on its left", just(leftBar(500, 704, 740)), false},
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

// TestMarked checks the 2% rule: a marked point (a significant overhead)
// drawn within 2% of its axis from zero, or a marked bar shorter than
// 2% of its axis, is a violation; one further off is not, nor an
// unmarked bar as short. A text cut off at a plot's edge is one too.
func TestMarked(t *testing.T) {
	chart := func(marked ...float64) Layout {
		return Layout{Viewport: 1000, ScrollWidth: 1000,
			Charts: []ChartBox{{Plot: "o", Points: 3, AreaW: 500, AreaH: 300, DataW: 400, DataH: 200, Marked: marked}}}
	}
	bar := func(label string, width float64) Layout {
		return Layout{Viewport: 1000, ScrollWidth: 1000, Bars: []BarBox{{Plot: "b", Label: label, Width: width,
			End: 100 + width, Reach: 100 + width, Start: 100, ReachLeft: 100, LabelLeft: 104 + width, LabelRight: 150 + width,
			Left: 0, Right: 600, AreaLeft: 100}}}
	}
	for _, tt := range []struct {
		name string
		l    Layout
		want string
	}{
		{"points well off zero", chart(40, 120), ""},
		{"a point at 2%", chart(6), ""},
		{"a point on zero", chart(40, 1.5), "a marked point is drawn 1.5 px from zero on a 300 px axis, under 2%"},
		{"a long marked bar", bar("+40µs *", 200), ""},
		{"a short unmarked bar", bar("+1µs", 4), ""},
		{"a short marked bar", bar("+1µs *", 4), "marked bar +1µs * is 4.0 px long on a 500 px axis, under 2%"},
		{"a note cut off", Layout{Viewport: 1000, ScrollWidth: 1000, Cut: []Cut{{Plot: "o", Text: "line: overhead", Past: 12}}},
			`plot o: text "line: overhead" reaches 12 px past the plot's edge`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Page{Layout: tt.l}.Violations()
			switch {
			case tt.want == "" && len(v) > 0:
				t.Errorf("violations %q; want none", v)
			case tt.want != "" && (len(v) != 1 || !strings.Contains(v[0], tt.want)):
				t.Errorf("violations %q; want one saying %q", v, tt.want)
			}
		})
	}
}
