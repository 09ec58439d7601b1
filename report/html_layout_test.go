package report

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// TestHTMLOneLevel checks that a study at one level draws its variants
// side by side as bars, not lines of one point against the load.
func TestHTMLOneLevel(t *testing.T) {
	page := string(writeStudyHTML(t, loadOneLevel, HTMLOptions{}))
	if !strings.Contains(page, "Every counted run was at 100/s, so there is no line against the load to draw") {
		t.Errorf("the page does not say why it draws no line against the load")
	}
	// No run of the fixture had an error: a line says so, where a plot at
	// zero would be.
	if plotSVG(page, "errors-vs-rate") != "" || !strings.Contains(page, noErrors) {
		t.Errorf("an error-ratio plot of no errors, or no line saying there were none")
	}
	for _, id := range []string{"latency-vs-rate", "overhead-vs-rate-p50", "overhead-vs-rate-p99"} {
		svg := plotSVG(page, id)
		if svg == "" {
			t.Errorf("no plot %s", id)
			continue
		}
		if !strings.Contains(svg, `<g class="row">`) || strings.Contains(svg, "marker-mid") {
			t.Errorf("plot %s is not drawn as bars over the variants", id)
		}
	}
}

// TestHTMLOneVariant checks the report of a lone variant: no overhead
// section but a sentence saying why; hop bars of microseconds beside
// whiskers of 100 ms on a log axis; the work ratio's p100, a bucket's
// bound, shown as one; rates whose window is not yet full marked.
func TestHTMLOneVariant(t *testing.T) {
	page := string(writeStudyHTML(t, loadOneVariant, HTMLOptions{}))
	if strings.Contains(page, `<section id="overhead">`) || strings.Contains(page, `href="#overhead"`) {
		t.Errorf("a report of one variant has an overhead section")
	}
	if !strings.Contains(page, "One variant only, filter: there is no other to compare it with, so this report has no overhead section.") {
		t.Errorf("the page does not say why it has no overhead section")
	}
	if hops := plotSVG(page, "hops"); !strings.Contains(hops, "(log axis)") {
		t.Errorf("the per-hop bars, p50 of µs and p99 of 100 ms, are not on a log axis")
	}
	for _, v := range []string{"500.00%", "1000.00%"} {
		if strings.Contains(page, ">"+v+"<") {
			t.Errorf("the bucket bound %s reads as a value", v)
		}
	}
	if !strings.Contains(page, ">≤ 1000.00%<") {
		t.Errorf("the work ratio's max is not shown as a bucket bound, ≤ 1000.00%%")
	}
	rate := plotSVG(page, "probe-latlab_filter_duration_seconds-rate")
	if !strings.Contains(rate, "the 2s window not yet full") || !strings.Contains(rate, `stroke-width="0.8"`) {
		t.Errorf("the observation rates do not mark the points read before the 2s window was full:\n%s", rate)
	}
}

// plotSVG returns the svg element of page with the given id, or "".
func plotSVG(page, id string) string {
	m := regexp.MustCompile(`(?s)<svg [^>]*id="` + regexp.QuoteMeta(id) + `".*?</svg>`).FindString(page)
	return m
}

// TestProbeChartsOneTime checks that a probe series sampled once in the
// run drawn is not drawn as a line over time, a dot at one x, but named
// in the notes, nor one whose points, in the runs drawn, sit a few
// milliseconds apart, while one sampled over the run is drawn.
func TestProbeChartsOneTime(t *testing.T) {
	r := &Experiment{variants: []string{"a", "b"}, Exp: &analysis.Experiment{}}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	proc := map[string]string{"pid": "1", "role": "target", "comm": "node"}
	node := map[string]string{"service": "x"}
	run := &analysis.RunDetail{Run: analysis.Run{Trial: store.Trial{Variant: "a"}}, Probes: []store.ProbePoint{
		{Probe: "process", Series: "cpu_allowed_percent", Labels: proc, Time: at, Value: 10},
		{Probe: "process", Series: "rss_bytes", Labels: proc, Time: at, Value: 1 << 20},
		{Probe: "process", Series: "rss_bytes", Labels: proc, Time: at.Add(time.Second), Value: 1 << 20},
		{Probe: "metrics", Series: "work_seconds:p50", Labels: node, Time: at.Add(time.Second), Value: 1},
	}}
	// Another variant's run, whose one round of scrapes came 2 ms later
	// after its start: the two runs' points are 2 ms apart on the axis.
	other := &analysis.RunDetail{Run: analysis.Run{Trial: store.Trial{Variant: "b"}}, Probes: []store.ProbePoint{
		{Probe: "process", Series: "rss_bytes", Labels: proc, Time: at, Value: 1 << 20},
		{Probe: "process", Series: "rss_bytes", Labels: proc, Time: at.Add(time.Second), Value: 1 << 20},
		{Probe: "metrics", Series: "work_seconds:p50", Labels: node, Time: at.Add(time.Second + 2*time.Millisecond), Value: 2},
	}}
	groups, notes := r.probeCharts([]*analysis.RunDetail{run, other})
	var titles []string
	for _, g := range groups {
		for _, c := range g.charts {
			titles = append(titles, c.Title)
		}
	}
	if len(titles) != 1 || titles[0] != "resident memory" {
		t.Errorf("charts %q; want only resident memory", titles)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "CPU, share of the CPUs allowed") || !strings.Contains(notes[0], "work_seconds") {
		t.Errorf("notes %q; want one naming the CPU and work plots left out", notes)
	}
}

// TestProbeChartsAtZero checks that a probe series at 0 all through the
// runs drawn (a flow-control wait that never waited) is named in the
// notes rather than drawn as a flat line, while one that moves is drawn.
func TestProbeChartsAtZero(t *testing.T) {
	r := &Experiment{variants: []string{"a"}, Exp: &analysis.Experiment{}}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	node := map[string]string{"service": "x"}
	var probes []store.ProbePoint
	for i := range 5 {
		t := at.Add(time.Duration(i) * time.Second)
		probes = append(probes,
			store.ProbePoint{Probe: "metrics", Series: "wait_seconds:p50", Labels: node, Time: t, Value: 0},
			store.ProbePoint{Probe: "metrics", Series: "work_seconds:p50", Labels: node, Time: t, Value: float64(i % 2)})
	}
	run := &analysis.RunDetail{Run: analysis.Run{Trial: store.Trial{Variant: "a"}}, Probes: probes}
	groups, notes := r.probeCharts([]*analysis.RunDetail{run})
	var titles []string
	for _, g := range groups {
		titles = append(titles, g.title)
	}
	if len(titles) != 1 || titles[0] != "work_seconds" {
		t.Errorf("chart groups %q; want only work_seconds", titles)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "at 0 throughout") || !strings.Contains(notes[0], "wait_seconds") {
		t.Errorf("notes %q; want one naming wait_seconds, at 0 throughout", notes)
	}
}

// TestOverheadAtOneLevel checks that overheads at one level only, the
// others left without counted runs, are drawn as bars over the variants,
// not as dots on a line axis.
func TestOverheadAtOneLevel(t *testing.T) {
	r, _, err := richReport(context.Background(), HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Overheads = slices.DeleteFunc(slices.Clone(r.Overheads), func(o analysis.Comparison) bool { return o.Rate != 100 })
	s := r.rateSection()
	var page strings.Builder
	for _, p := range s.Plots {
		page.WriteString(string(p))
	}
	if svg := plotSVG(page.String(), "overhead-vs-rate-p50"); !strings.Contains(svg, `<g class="row">`) || !strings.Contains(svg, "at 100/s") {
		t.Errorf("overheads at 100/s only are not drawn as bars at that level:\n%.300s", svg)
	}
	if svg := plotSVG(page.String(), "latency-vs-rate"); strings.Contains(svg, `<g class="row">`) {
		t.Errorf("latency at three levels is drawn as bars, not against the load")
	}
}

// TestNoOverheadToDraw checks that a section against the load draws no
// empty overhead plot when no p50 or p99 overhead has a value, and says
// so.
func TestNoOverheadToDraw(t *testing.T) {
	r, _, err := richReport(context.Background(), HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Overheads = slices.Clone(r.Overheads)
	for i := range r.Overheads {
		if n := r.Overheads[i].Name; n == "p50" || n == "p99" {
			r.Overheads[i].Abs = math.NaN()
		}
	}
	s := r.rateSection()
	for _, p := range s.Plots {
		if strings.Contains(string(p), `id="overhead-vs-rate`) {
			t.Errorf("an overhead plot with nothing to draw")
		}
	}
	if !slices.Contains(s.Intro, noOverheadPlot) {
		t.Errorf("intro %q does not say why there is no overhead plot", s.Intro)
	}
}

// TestOverheadPlotsScale checks that each overhead is drawn at its own
// scale: p50 and p99 on plots of their own, a variant adding 10 ms and
// one adding 300µs each on its own line plot, or the bars of one level on
// a log axis; and that a significant overhead is marked, a dot of class
// sig on the line, " *" after the bar's label, and an insignificant one
// is not.
func TestOverheadPlotsScale(t *testing.T) {
	r := overheadReport(t)
	for _, rate := range []float64{100, 200} {
		r.Overheads = append(r.Overheads,
			overheadAt("proxy", "p50", rate, 300e-6, rate == 200), overheadAt("filter", "p50", rate, 10e-3, true),
			overheadAt("proxy", "p99", rate, 2e-3, false), overheadAt("filter", "p99", rate, 4e-3, true))
	}
	var page strings.Builder
	for _, p := range r.overheadCharts(r.levelAxis()) {
		page.WriteString(string(p))
	}
	charts := page.String()
	for _, id := range []string{"overhead-vs-rate-p50-proxy", "overhead-vs-rate-p50-filter", "overhead-vs-rate-p99"} {
		if plotSVG(charts, id) == "" {
			t.Errorf("no plot %s", id)
		}
	}
	if n := strings.Count(charts, `<svg `); n != 3 {
		t.Errorf("%d overhead plots; want 3: p50 of each variant apart, p99 of both together", n)
	}
	// proxy at 200/s, filter at both rates: 3 dots at p50, filter's 2 at p99.
	if n := strings.Count(plotSVG(charts, "overhead-vs-rate-p50-proxy"), `class="series sig"`); n != 1 {
		t.Errorf("proxy's p50 plot marks %d overheads significant; want 1", n)
	}
	if n := strings.Count(plotSVG(charts, "overhead-vs-rate-p99"), `class="series sig"`); n != 2 {
		t.Errorf("the p99 plot marks %d overheads significant; want 2, filter's", n)
	}

	r.Overheads = slices.DeleteFunc(r.Overheads, func(o analysis.Comparison) bool { return o.Rate != 200 })
	page.Reset()
	for _, p := range r.overheadBars(analysis.Level{Rate: 200}) {
		page.WriteString(string(p))
	}
	p50, p99 := plotSVG(page.String(), "overhead-vs-rate-p50"), plotSVG(page.String(), "overhead-vs-rate-p99")
	if !strings.Contains(p50, "(log axis)") || strings.Contains(p99, "(log axis)") {
		t.Errorf("p50 bars of 300µs and 10ms on a log axis, p99 of 2 and 4 ms on a linear one: p50 log %v, p99 log %v",
			strings.Contains(p50, "(log axis)"), strings.Contains(p99, "(log axis)"))
	}
	if strings.Count(p50, " *</text>") != 2 || strings.Count(p99, " *</text>") != 1 {
		t.Errorf("marked bars: %d at p50, %d at p99; want 2 and 1", strings.Count(p50, " *</text>"), strings.Count(p99, " *</text>"))
	}
}

// TestOverheadChartOrder checks that an overhead chart's legend lists
// the variants in the report's order, as the latency chart does.
func TestOverheadChartOrder(t *testing.T) {
	r := overheadReport(t)
	for _, rate := range []float64{100, 200} {
		for _, v := range []string{"proxy", "filter"} {
			r.Overheads = append(r.Overheads, overheadAt(v, "p50", rate, 1e-3, true))
		}
	}
	var page strings.Builder
	for _, p := range r.overheadCharts(r.levelAxis()) {
		page.WriteString(string(p))
	}
	svg := plotSVG(page.String(), "overhead-vs-rate-p50")
	if p, f := strings.Index(svg, `data-name="proxy"`), strings.Index(svg, `data-name="filter"`); p < 0 || f < 0 || p > f {
		t.Errorf("proxy's line at %d, filter's at %d; want proxy's first", p, f)
	}
}

// overheadReport returns the rich fixture's report with the variants
// base, the baseline, proxy and filter, and no overheads yet.
func overheadReport(t *testing.T) *Experiment {
	t.Helper()
	r, _, err := richReport(context.Background(), HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.variants, r.Baseline, r.Overheads = []string{"base", "proxy", "filter"}, "base", nil
	return r
}

// overheadAt returns variant v's overhead of abs seconds over base at stat and
// rate, its 95% CI ±20% about it.
func overheadAt(v, stat string, rate, abs float64, sig bool) analysis.Comparison {
	return analysis.Comparison{Variant: v, Baseline: "base", Level: analysis.Level{Rate: rate}, Stat: spec.Stat{Name: stat},
		Diff: analysis.Diff{Abs: abs, AbsLo: 0.8 * abs, AbsHi: 1.2 * abs, CIOK: true, Significant: sig}}
}

// TestOverheadOneLevelVariant checks that a variant whose overheads have
// a value at one level only, plotted on its own, is drawn as bars at that
// level, not as a line of one point (a quick demo's chain-proxy).
func TestOverheadOneLevelVariant(t *testing.T) {
	r := overheadReport(t)
	r.Overheads = append(r.Overheads, overheadAt("proxy", "p50", 200, 300e-6, true),
		overheadAt("filter", "p50", 100, 10e-3, true), overheadAt("filter", "p50", 200, 10e-3, true))
	var page strings.Builder
	for _, p := range r.overheadCharts(r.levelAxis()) {
		page.WriteString(string(p))
	}
	if svg := plotSVG(page.String(), "overhead-vs-rate-p50-proxy"); !strings.Contains(svg, `<g class="row">`) || !strings.Contains(svg, "at 200/s") {
		t.Errorf("proxy's one overhead is not drawn as a bar at 200/s:\n%.300s", svg)
	}
	if svg := plotSVG(page.String(), "overhead-vs-rate-p50-filter"); svg == "" || strings.Contains(svg, `<g class="row">`) {
		t.Errorf("filter's overheads at two levels are not drawn as a line")
	}
}
