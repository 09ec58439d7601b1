package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
)

// writeRichHTML writes the rich fixture's HTML report.
func writeRichHTML(t testing.TB, opt HTMLOptions) []byte {
	t.Helper()
	r, d, err := richReport(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var (
	reSection = regexp.MustCompile(`<section id="([^"]+)">\s*<h2>([^<]*)</h2>`)
	reSVG     = regexp.MustCompile(`<svg [^>]*>`)
	reAttr    = regexp.MustCompile(`\b(id|data-series|data-points)="([^"]*)"`)
	reHead    = regexp.MustCompile(`<thead><tr>(.*?)</tr></thead>`)
	reTag     = regexp.MustCompile(`<[^>]+>`)
)

// htmlStructure lists a page's sections, plots (with their series and
// point counts) and table heads: what the golden file pins, without the
// pixel coordinates that any change of layout moves.
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
		for _, h := range reHead.FindAllStringSubmatch(body, -1) {
			fmt.Fprintf(&b, "  table: %s\n", strings.TrimSpace(reTag.ReplaceAllString(strings.ReplaceAll(h[1], "</th>", " | "), "")))
		}
		for _, tag := range reSVG.FindAllString(body, -1) {
			attrs := map[string]string{}
			for _, a := range reAttr.FindAllStringSubmatch(tag, -1) {
				attrs[a[1]] = a[2]
			}
			fmt.Fprintf(&b, "  plot %s: %s series, %s points\n", attrs["id"], attrs["data-series"], attrs["data-points"])
		}
	}
	return b.String()
}

func TestHTMLStructure(t *testing.T) {
	page := writeRichHTML(t, HTMLOptions{})
	golden(t, "html-structure.txt", htmlStructure(page))
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
		"time-throughput-", "time-inflight-", "trend-", "probe-cpu_allowed_percent", "probe-latlab_filter_duration_seconds",
		"hops", "profile-"}
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
