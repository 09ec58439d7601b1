// Package plot draws small, self-contained SVG charts for the HTML report:
// line, marker, step and band series over linear, log or percentile axes,
// with grid, legend, shaded x-ranges and horizontal reference rules
// (Chart), and horizontal grouped bars with whiskers, one row per category
// (Bars). The output is one <svg> element with no scripts, images or network access,
// meant to be inlined in a page.
//
// ExampleChart_SVG draws a line chart with an SLO rule and inlines it in an
// html/template page; ExampleChart_SVG_overTime draws latency over time
// with a confidence band and the warm-up shaded.
//
// Fixed axis ends are pointers so that nil means automatic; Go 1.26 spells
// one as new(0.0). Series colours index Palette, whose Okabe–Ito colours
// stay distinguishable with the common forms of colour blindness.
//
// Every point a series can place (finite X and Y that its axes can show) is
// counted in the root element's data-points attribute and every series with
// such a point in data-series, so a browser test can check what was drawn.
// Escaping is done here: SVG returns markup that is safe to mark as
// template.HTML. A Chart or Bars is only read while it is drawn, so WriteSVG
// and SVG may be called concurrently on the same value as long as nobody changes it
// (or Palette) meanwhile.
package plot
