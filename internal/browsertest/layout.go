package browsertest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// Layout is the geometry of a page as laid out, in CSS pixels, for the
// checks of Violations.
type Layout struct {
	Viewport    float64    `json:"viewport"`    // the window's inner width
	ScrollWidth float64    `json:"scrollWidth"` // the document's; above Viewport, it scrolls sideways
	Tables      []TableBox `json:"tables"`
	Bars        []BarBox   `json:"bars"`
	Charts      []ChartBox `json:"charts"`
	Gaps        []Gap      `json:"gaps"`
	Cut         []Cut      `json:"cut"`
}

// A Cut is a text of a plot that reaches past the plot's edges, where
// the browser cuts it off.
type Cut struct {
	Plot string  `json:"plot"`
	Text string  `json:"text"`
	Past float64 `json:"past"` // how far past the nearer edge, in px
}

// A TableBox is one table: where its right edge is and whether the box
// holding it scrolls sideways.
type TableBox struct {
	Where  string  `json:"where"` // section id and caption or index
	Right  float64 `json:"right"`
	Scroll bool    `json:"scroll"` // its wrapper is narrower than the table
}

// A BarBox is one bar of a bar chart with its value label.
type BarBox struct {
	Plot  string  `json:"plot"`
	Label string  `json:"label"`
	Width float64 `json:"width"` // the drawn bar
	// End is the right end of the bar, Reach that of the bar or its
	// whisker, whichever is further; LabelLeft and LabelRight bound its
	// value label, which sits at the bar's end, inside or past it, or past
	// the whisker. Start and ReachLeft are the same on the left, where
	// the label of a bar going left (a negative value, "-2ms") sits.
	End        float64 `json:"end"`
	Reach      float64 `json:"reach"`
	Start      float64 `json:"start"`
	ReachLeft  float64 `json:"reachLeft"`
	LabelLeft  float64 `json:"labelLeft"`
	LabelRight float64 `json:"labelRight"`
	// Left and Right bound the chart; AreaLeft is where its bars may
	// start, right of the category labels (Left when it has none). A bar
	// going left whose label would not fit between AreaLeft and the bar
	// has it on its right, past its end or whisker.
	Left     float64 `json:"left"`
	Right    float64 `json:"right"`
	AreaLeft float64 `json:"areaLeft"`
}

// A ChartBox is one line chart: its plot area and what its data covers.
type ChartBox struct {
	Plot   string  `json:"plot"`
	Points int     `json:"points"`
	AreaW  float64 `json:"areaW"` // the plot area, inside the axes
	AreaH  float64 `json:"areaH"`
	DataW  float64 `json:"dataW"` // the union of the series and bands
	// DataH is the height of the data, rules (limits, budgets) and, when
	// the y axis shows it, zero: the share of the area they take.
	DataH float64 `json:"dataH"`
	// Marked are how far from zero, in pixels, the chart draws each of
	// its marked points (its series of class "sig", such as a
	// significant overhead), when the y axis shows zero.
	Marked []float64 `json:"marked"`
}

// A Gap is the blank space beneath a plot, down to whatever comes next
// below it in its section, in any column: a plot shorter than the others
// of its row leaves one.
type Gap struct {
	Plot  string  `json:"plot"`
	Blank float64 `json:"blank"`
}

// Bounds of Violations, in CSS pixels or shares of a plot area.
const (
	minBarWidth  = 3   // a bar with a value is at least this wide
	maxLabelGap  = 12  // a value label starts or ends this close to its bar's end
	maxBlank     = 64  // beneath a plot: a heading and its margins fit
	minDataShare = 0.2 // of the plot area's height the data's range takes
	minDataWidth = 8   // a line chart's data spans at least this width
	// minMarked is the least share of its axis a marked point or bar
	// stands off zero by: a significant overhead drawn closer reads as none.
	minMarked = 0.02
)

// zeroLabel matches the label of a bar of zero, which may be thin.
var zeroLabel = regexp.MustCompile(`^0([^.0-9]|$)`)

// layoutJS runs in the page and returns a Layout.
const layoutJS = `(() => {
  const R = e => e.getBoundingClientRect();
  const out = {viewport: window.innerWidth, scrollWidth: document.documentElement.scrollWidth,
    tables: [], bars: [], charts: [], gaps: [], cut: []};
  document.querySelectorAll("table").forEach((t, i) => {
    const sec = t.closest("section"), cap = t.querySelector("caption"), wrap = t.parentElement;
    out.tables.push({where: (sec ? sec.id : "") + " " + (cap ? cap.textContent : "table " + i),
      right: R(t).right, scroll: wrap.scrollWidth > wrap.clientWidth + 1});
  });
  for (const svg of document.querySelectorAll("svg.plot")) {
    const box = R(svg);
    for (const tx of svg.querySelectorAll("text")) {
      const b = R(tx), past = Math.max(b.right - box.right, box.left - b.left);
      if (b.width > 0 && past > 0.5) out.cut.push({plot: svg.id, text: tx.textContent, past: past});
    }
    const rows = svg.querySelectorAll("g.row");
    if (rows.length > 0) {
      for (const row of rows) {
        let bar = null, band = null;
        const cat = row.querySelector("text.category");
        const areaLeft = cat ? R(cat).right + 8 : box.left;
        for (const el of row.children) {
          if (el.matches("rect.series")) bar = R(el), band = null;
          else if (el.matches("path.band") && bar) band = R(el);
          else if (el.matches("text.value") && bar) {
            const l = R(el);
            out.bars.push({plot: svg.id, label: el.textContent, width: bar.width, end: bar.right,
              reach: Math.max(bar.right, band ? band.right : 0),
              start: bar.left, reachLeft: Math.min(bar.left, band ? band.left : Infinity),
              labelLeft: l.left, labelRight: l.right, left: box.left, right: box.right, areaLeft: areaLeft});
            bar = null;
          }
        }
      }
      continue;
    }
    const axis = svg.querySelector("path.axis");
    if (axis) {
      const a = R(axis);
      let top = Infinity, bottom = -Infinity, left = Infinity, right = -Infinity;
      for (const el of svg.querySelectorAll(".series, .band, .rule")) {
        const b = R(el);
        top = Math.min(top, b.top); bottom = Math.max(bottom, b.bottom);
        if (el.matches(".rule")) continue; // a limit spans the axis: no data
        left = Math.min(left, b.left); right = Math.max(right, b.right);
      }
      // Zero, where the y axis shows it, belongs to the data's range.
      const zeros = [];
      for (const z of svg.querySelectorAll("path.zero")) {
        const b = R(z);
        if (b.height < 1) zeros.push(b.top);
      }
      const yticks = svg.querySelector('g.ticks[text-anchor="end"]');
      for (const tx of yticks ? yticks.querySelectorAll("text") : []) {
        if (tx.textContent.trim() === "0") { const b = R(tx); zeros.push((b.top + b.bottom) / 2); }
      }
      const marked = [];
      if (zeros.length > 0) for (const m of svg.querySelectorAll("path.series.sig")) {
        const b = R(m);
        marked.push(Math.abs((b.top + b.bottom) / 2 - zeros[0]));
      }
      if (top <= bottom) for (const z of zeros) { top = Math.min(top, z); bottom = Math.max(bottom, z); }
      out.charts.push({plot: svg.id, points: +svg.dataset.points, areaW: a.width, areaH: a.height,
        dataW: right > left ? right - left : 0, dataH: bottom > top ? bottom - top : 0, marked: marked});
    }
    const sec = svg.closest("section");
    if (!sec) continue;
    let next = Infinity;
    for (const el of sec.querySelectorAll("svg.plot, h3, p, table, ul, figure")) {
      if (el === svg || el.contains(svg) || svg.contains(el)) continue;
      const b = R(el);
      // Anything below, in any column: an empty cell at the end of a
      // row is no gap, a plot shorter than its row's others is.
      if (b.height === 0 || b.top < box.bottom - 1) continue;
      next = Math.min(next, b.top);
    }
    if (next < Infinity) out.gaps.push({plot: svg.id, blank: next - box.bottom});
  }
  return out;
})()`

// Violations lists what is wrong with the page's layout at its width:
// a document or table that scrolls sideways, a bar too thin to see or a
// value label away from its bar or outside its chart, a line chart whose
// data sits at one x or in a sliver of its height, a marked point or bar
// (a significant overhead) within 2% of its axis from zero, a text of a
// plot cut off at its edges, and blank space beneath a plot.
func (p Page) Violations() []string {
	l := p.Layout
	var out []string
	if l.ScrollWidth > l.Viewport+0.5 {
		out = append(out, fmt.Sprintf("the document is %.0f px wide in a %.0f px window: it scrolls sideways", l.ScrollWidth, l.Viewport))
	}
	for _, t := range l.Tables {
		if t.Right > l.Viewport+0.5 || t.Scroll {
			out = append(out, fmt.Sprintf("table %q ends at %.0f px in a %.0f px window (scrolls: %v)", t.Where, t.Right, l.Viewport, t.Scroll))
		}
	}
	for _, b := range l.Bars {
		if b.Width < minBarWidth && !zeroLabel.MatchString(b.Label) {
			out = append(out, fmt.Sprintf("plot %s: bar %s is %.1f px wide, want at least %d", b.Plot, b.Label, b.Width, minBarWidth))
		}
		if b.LabelLeft < b.Left || b.LabelRight > b.Right+0.5 {
			out = append(out, fmt.Sprintf("plot %s: label %s (%.0f–%.0f px) is outside the chart (%.0f–%.0f px)",
				b.Plot, b.Label, b.LabelLeft, b.LabelRight, b.Left, b.Right))
		}
		end, reach := b.End, b.Reach
		if strings.HasPrefix(b.Label, "-") || strings.HasPrefix(b.Label, "−") { // a bar going left
			// On its left, unless the label would not fit there. The
			// chart placed it by its estimate of the label's width,
			// which may differ from the browser's by a few pixels: when
			// the room is that close, either side will do.
			room := b.ReachLeft - 4 - (b.LabelRight - b.LabelLeft) - b.AreaLeft
			left := near(b, b.Start) || near(b, b.ReachLeft)
			if room >= maxLabelGap || b.LabelLeft < b.Start || room > -maxLabelGap && left {
				end, reach = b.Start, b.ReachLeft
			}
		}
		if area := b.Right - b.AreaLeft; strings.HasSuffix(b.Label, "*") && b.Width < minMarked*area {
			out = append(out, fmt.Sprintf("plot %s: marked bar %s is %.1f px long on a %.0f px axis, under %.0f%%: it reads as none",
				b.Plot, b.Label, b.Width, area, 100*minMarked))
		}
		if !near(b, end) && !near(b, reach) {
			out = append(out, fmt.Sprintf("plot %s: label %s (%.0f–%.0f px) is neither at its bar's end (%.0f px) nor past its whisker (%.0f px)",
				b.Plot, b.Label, b.LabelLeft, b.LabelRight, end, reach))
		}
	}
	for _, c := range l.Charts {
		if c.Points == 0 {
			continue
		}
		if c.DataW < minDataWidth {
			out = append(out, fmt.Sprintf("plot %s: its %d point(s) span %.1f px of a %.0f px axis: a line plot of one x value", c.Plot, c.Points, c.DataW, c.AreaW))
		}
		// Data at one height, zero included (a line of no errors along
		// its axis), has nothing an axis could squash.
		if c.DataH >= 1 && c.DataH < minDataShare*c.AreaH {
			out = append(out, fmt.Sprintf("plot %s: its data spans %.0f of %.0f px: the axis is mostly empty", c.Plot, c.DataH, c.AreaH))
		}
		for _, m := range c.Marked {
			if m < minMarked*c.AreaH {
				out = append(out, fmt.Sprintf("plot %s: a marked point is drawn %.1f px from zero on a %.0f px axis, under %.0f%%: it reads as none",
					c.Plot, m, c.AreaH, 100*minMarked))
			}
		}
	}
	for _, c := range l.Cut {
		out = append(out, fmt.Sprintf("plot %s: text %q reaches %.0f px past the plot's edge, where it is cut off", c.Plot, c.Text, c.Past))
	}
	for _, g := range l.Gaps {
		if g.Blank > maxBlank {
			out = append(out, fmt.Sprintf("plot %s: %.0f px blank beneath it, want at most %d", g.Plot, g.Blank, maxBlank))
		}
	}
	return out
}

// CheckLayout reports each of page's Violations as an error of t and
// returns them.
func CheckLayout(t testing.TB, page Page) []string {
	t.Helper()
	v := page.Violations()
	for _, s := range v {
		t.Errorf("%s: %s", page.Path, s)
	}
	return v
}

// near reports whether b's value label starts or ends within maxLabelGap
// of x.
func near(b BarBox, x float64) bool {
	return b.LabelLeft <= x+maxLabelGap && b.LabelRight >= x-maxLabelGap
}
