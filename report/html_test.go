package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
)

// writeRichHTML writes the rich fixture's HTML report.
func writeRichHTML(t testing.TB, opt HTMLOptions) []byte {
	t.Helper()
	return writeStudyHTML(t, loadRich, opt)
}

// writeStudyHTML writes the HTML report of the study load writes.
func writeStudyHTML(t testing.TB, load func() (string, error), opt HTMLOptions) []byte {
	t.Helper()
	build := func() ([]byte, error) {
		r, d, err := studyReport(context.Background(), load, opt)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		err = r.WriteHTML(&b, d)
		return b.Bytes(), err
	}
	var page []byte
	var err error
	if opt == (HTMLOptions{}) {
		var path string
		if path, err = load(); err == nil {
			f, _ := defaultPages.LoadOrStore(path, sync.OnceValues(build))
			page, err = f.(func() ([]byte, error))()
			page = bytes.Clone(page)
		}
	} else {
		page, err = build()
	}
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// defaultPages holds each study's page with the default options, by its
// database path, written once per test binary: the tests only read the
// database and the page.
var defaultPages sync.Map

var (
	reSection = regexp.MustCompile(`<section id="([^"]+)">\s*<h2>([^<]*)</h2>`)
	reSVG     = regexp.MustCompile(`<svg [^>]*>`)
	reAttr    = regexp.MustCompile(`\b(id|data-series|data-points)="([^"]*)"`)
	reTag     = regexp.MustCompile(`<[^>]+>`)
	// rePart finds what htmlStructure lists, in page order.
	rePart = regexp.MustCompile(`<thead><tr>(.*?)</tr></thead>|<svg [^>]*>|<h3>(.*?)</h3>`)
)

// htmlStructure lists a page's sections, table heads, plot groups and
// plots (with their series and point counts) in page order: what the
// golden file pins, without the pixel coordinates that any change of
// layout moves.
func htmlStructure(page []byte) string {
	var b strings.Builder
	s := string(page)
	secs := reSection.FindAllStringSubmatchIndex(s, -1)
	for i, m := range secs {
		end := len(s)
		if i+1 < len(secs) {
			end = secs[i+1][0]
		}
		body := s[m[1]:end]
		fmt.Fprintf(&b, "section %s: %s\n", s[m[2]:m[3]], s[m[4]:m[5]])
		for _, m := range rePart.FindAllStringSubmatch(body, -1) {
			switch {
			case m[1] != "":
				fmt.Fprintf(&b, "  table: %s\n", strings.TrimSpace(reTag.ReplaceAllString(strings.ReplaceAll(m[1], "</th>", " | "), "")))
			case m[2] != "":
				fmt.Fprintf(&b, "  group: %s\n", reTag.ReplaceAllString(m[2], ""))
			default:
				attrs := map[string]string{}
				for _, a := range reAttr.FindAllStringSubmatch(m[0], -1) {
					attrs[a[1]] = a[2]
				}
				fmt.Fprintf(&b, "  plot %s: %s series, %s points\n", attrs["id"], attrs["data-series"], attrs["data-points"])
			}
		}
	}
	return b.String()
}

// plotAttrs returns the id, data-series and data-points of every plot of
// page, by id.
func plotAttrs(page string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, tag := range reSVG.FindAllString(page, -1) {
		attrs := map[string]string{}
		for _, a := range reAttr.FindAllStringSubmatch(tag, -1) {
			attrs[a[1]] = a[2]
		}
		out[attrs["id"]] = attrs
	}
	return out
}

func TestHTMLStructure(t *testing.T) {
	page := writeRichHTML(t, HTMLOptions{})
	checkGolden(t, "html-structure.txt", htmlStructure(page))
}

func TestHTMLSelfContained(t *testing.T) {
	page := string(writeRichHTML(t, HTMLOptions{}))
	if m := regexp.MustCompile(`url\([^#]`).FindStringIndex(page); m != nil {
		t.Errorf("the page refers to something outside itself: …%s…", page[max(0, m[0]-80):min(len(page), m[1]+80)])
	}
	for _, bad := range []string{"<script", "<img", "<link", "src=", "@import", "NaN", "Inf"} {
		if strings.Contains(page, bad) {
			i := strings.Index(page, bad)
			t.Errorf("the page contains %q: …%s…", bad, page[max(0, i-80):min(len(page), i+80)])
		}
	}
	if n := strings.Count(page, "http://") + strings.Count(page, "https://"); n != strings.Count(page, "http://www.w3.org/2000/svg") {
		t.Errorf("the page refers to the network: %d URLs besides the SVG namespace", n-strings.Count(page, "http://www.w3.org/2000/svg"))
	}
	const limit = 5 << 20
	if len(page) > limit {
		t.Errorf("the page is %d bytes; want at most %d", len(page), limit)
	}
}

func TestHTMLEveryPlotHasData(t *testing.T) {
	page := string(writeRichHTML(t, HTMLOptions{}))
	want := []string{"latency-vs-rate", "overhead-vs-rate", "errors-vs-rate", "cdf", "pdf", "time-latency-",
		"time-throughput-", "time-inflight-", "trend-", "lag-trend-", "probe-cpu_allowed_percent", "probe-rss_bytes",
		"probe-latlab_filter_duration_seconds-filter_delay", "probe-latlab_filter_duration_seconds-filter_passthrough",
		"probe-latlab_filter_duration_seconds-rate", "hops", "profile-"}
	var ids []string
	for _, tag := range reSVG.FindAllString(page, -1) {
		attrs := map[string]string{}
		for _, a := range reAttr.FindAllStringSubmatch(tag, -1) {
			attrs[a[1]] = a[2]
		}
		ids = append(ids, attrs["id"])
		if attrs["data-points"] == "0" || attrs["data-points"] == "" || attrs["data-series"] == "0" {
			t.Errorf("plot %s: %s series, %s points; want data", attrs["id"], attrs["data-series"], attrs["data-points"])
		}
	}
	for _, w := range want {
		found := false
		for _, id := range ids {
			found = found || strings.HasPrefix(id, w)
		}
		if !found {
			t.Errorf("no plot %s*; plots: %v", w, ids)
		}
	}
	for _, sec := range []string{`id="hops"`, `id="profiles"`, `id="trend"`, "net/http.(*conn).serve", "gateway"} {
		if !strings.Contains(page, sec) {
			t.Errorf("the page has no %s", sec)
		}
	}
}

// TestHTMLProbePlots checks the probe plots of the rich fixture, whose
// filter variant has two filters fifty times apart and their rates: one
// plot per filter, on a scale that fits it, the rate on a per-second plot
// of its own, no plot beyond a legend's lines, and every line named in its
// plot's legend.
func TestHTMLProbePlots(t *testing.T) {
	r, d, _ := richWithProbes(t)
	groups, notes := r.probeCharts(r.representatives(d))
	if len(notes) > 0 {
		t.Errorf("lines left out: %q", notes)
	}
	var titles []string
	for _, g := range groups {
		for _, c := range g.charts {
			titles = append(titles, g.title+": "+c.Title)
			if len(c.Series) == 0 || len(c.Series) > maxProbeSeries {
				t.Errorf("%s: %d series; want 1 to %d", c.Title, len(c.Series), maxProbeSeries)
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, s := range c.Series {
				if len(s.Points) == 0 || s.Name == "" {
					t.Errorf("%s: series %q has %d points", c.Title, s.Name, len(s.Points))
				}
				for _, p := range s.Points {
					lo, hi = min(lo, p.Y), max(hi, p.Y)
				}
			}
			switch {
			case strings.HasPrefix(c.Title, "observations per second"):
				if c.Y.Unit != plot.PerSecond {
					t.Errorf("%s: y unit %v; want per second", c.Title, c.Y.Unit)
				}
			case strings.HasPrefix(c.Title, "filter="):
				// Quantiles of one filter lie within a factor of a few; the
				// two filters together span fifty.
				if c.Y.Unit != plot.Seconds || !(hi/lo < 10) {
					t.Errorf("%s: y unit %v, values %g to %g; want seconds of one filter", c.Title, c.Y.Unit, lo, hi)
				}
			}
		}
	}
	want := []string{"latlab_filter_duration_seconds: filter=delay (filter)", "latlab_filter_duration_seconds: filter=passthrough (filter)",
		"latlab_filter_duration_seconds: observations per second (filter)",
		"Processes: CPU, share of the CPUs allowed", "Processes: resident memory"}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("probe plots (-want +got):\n%s", diff)
	}
	var page bytes.Buffer
	if err := r.WriteHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	reLegend := regexp.MustCompile(`(?s)<g class="legend">(.*?)</g>`)
	svgs := probeSVGs(page.String())
	if len(svgs) != len(titles) {
		t.Errorf("the page has %d probe plots; want %d", len(svgs), len(titles))
	}
	for id, svg := range svgs {
		attrs := plotAttrs(svg)[id]
		m := reLegend.FindStringSubmatch(svg)
		if m == nil {
			t.Errorf("%s: no legend", id)
			continue
		}
		if n := strings.Count(m[1], "<text"); fmt.Sprint(n) != attrs["data-series"] {
			t.Errorf("%s: %d legend entries for %s series", id, n, attrs["data-series"])
		}
	}
}

// probeSVGs returns the page's probe plots by id.
func probeSVGs(page string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<svg [^>]*id="(probe-[^"]*)".*?</svg>`).FindAllStringSubmatch(page, -1) {
		out[m[1]] = m[0]
	}
	return out
}

func TestHTMLLevel(t *testing.T) {
	r, _, err := richReport(context.Background(), HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.detailLevel(), (analysis.Level{Rate: 200}); got != want {
		t.Errorf("detail level %v; want %v, the highest every variant has counted runs at", got, want)
	}
	for _, tt := range []struct {
		in      string
		want    analysis.Level
		wantErr string
	}{
		{in: "400/s", want: analysis.Level{Rate: 400}},
		{in: "100", want: analysis.Level{Rate: 100}},
		{in: "300/s", wantErr: `"300/s": experiment 1 has no such level (it has 100/s, 200/s, 400/s)`},
	} {
		got, err := r.FindLevel(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("FindLevel(%q) error %v; want %s", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("FindLevel(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	l := analysis.Level{Rate: 400}
	page := string(writeRichHTML(t, HTMLOptions{Level: &l}))
	if !strings.Contains(page, "Latency distribution at 400/s") {
		t.Errorf("--level 400/s: the page does not draw 400/s in detail")
	}
}

func TestHTMLEmpty(t *testing.T) {
	r, err := NewExperiment(&analysis.Experiment{}, ExperimentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(true, strings.Contains(b.String(), "No run has a result yet.")); diff != "" {
		t.Errorf("empty experiment (-want +got):\n%s", diff)
	}
}

// TestJSONLevelWithoutRuns writes JSON for the rich fixture, where every
// run of filter at 400/s is flagged: its rate and error ratio are null.
func TestJSONLevelWithoutRuns(t *testing.T) {
	r, _, err := richReport(context.Background(), HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatalf("a level without counted runs: %v", err)
	}
	var got ExperimentJSON
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, l := range got.Levels {
		if l.Variant == "filter" && l.Rate == 400 && (l.Runs != 0 || l.AchievedRate != nil || l.ErrorRatio != nil) {
			t.Errorf("filter 400/s: runs %d, achieved %v, errors %v; want 0, null, null", l.Runs, l.AchievedRate, l.ErrorRatio)
		}
	}
}
