package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/browsertest"
)

// TestHTMLInBrowser opens the rich fixture's report in headless Chromium:
// every plot must be laid out with data drawn, the probe plots (small
// multiples, one per filter, rate and process series) with every series
// drawn, and the page must log no error. It saves screenshots of the page
// and of each section in $LATLAB_SCREENSHOTS, else in a temporary folder.
func TestHTMLInBrowser(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, writeRichHTML(t, HTMLOptions{}), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("LATLAB_SCREENSHOTS")
	if shots == "" {
		shots = dir
	}
	page := browsertest.Open(t, path, shots)
	if len(page.Plots) < 20 {
		t.Errorf("the browser found %d plots; want at least 20", len(page.Plots))
	}
	for _, p := range page.Plots {
		if p.Points == 0 || p.Series == 0 || p.Paths == 0 || p.Width < 200 || p.Height < 100 {
			t.Errorf("plot %s is not rendered with data: %+v", p.ID, p)
		}
	}
	probes := 0
	for _, p := range page.Plots {
		if !strings.HasPrefix(p.ID, "probe-") {
			continue
		}
		probes++
		if p.Paths != p.Series || p.Width < 400 {
			t.Errorf("probe plot %s: %d of %d series drawn, %.0f px wide; want all, at least 400 px", p.ID, p.Paths, p.Series, p.Width)
		}
	}
	// Two filters and their rate, CPU and memory.
	if probes != 5 {
		t.Errorf("the browser found %d probe plots; want 5", probes)
	}
	if !slices.Contains(page.Sections, "probes") {
		t.Errorf("no probes section among %v", page.Sections)
	}
	if len(page.Problems) > 0 {
		t.Errorf("the page logged %d problem(s):\n%s", len(page.Problems), strings.Join(page.Problems, "\n"))
	}
}

// Each study's report opened at 1400 px, its layout measured.
var (
	loadOneLevel   = loadStudy(oneLevel)
	loadOneVariant = loadStudy(oneVariant)
)

// TestHTMLLayout opens the report of each study in headless Chromium at
// 1400 px and measures its layout (browsertest.Violations): every table
// within the window, every bar wide enough to see with its label beside
// it, no line plot of one x value or with its data in a sliver of its
// height, no blank space under a plot. Screenshots go to
// $LATLAB_SCREENSHOTS when it is set.
func TestHTMLLayout(t *testing.T) {
	browsertest.Chromium(t)
	for _, tt := range []struct {
		name string
		load func() (string, error)
	}{{"rich", loadRich}, {"one-level", loadOneLevel}, {"one-variant", loadOneVariant}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name+".html")
			if err := os.WriteFile(path, writeStudyHTML(t, tt.load, HTMLOptions{}), 0o644); err != nil {
				t.Fatal(err)
			}
			page := browsertest.Open(t, path, os.Getenv("LATLAB_SCREENSHOTS"))
			browsertest.CheckLayout(t, page)
			if len(page.Layout.Tables) == 0 || len(page.Layout.Charts) == 0 {
				t.Errorf("measured %d tables and %d charts; want some of each", len(page.Layout.Tables), len(page.Layout.Charts))
			}
			if tt.name != "one-level" && len(page.Layout.Bars) == 0 {
				t.Errorf("measured no bar of the per-hop and profile charts")
			}
		})
	}
}
