package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/browsertest"
)

// TestHTMLInBrowser opens the rich fixture's report in headless Chromium:
// every plot must be laid out with data drawn, and the page must log no
// error. It saves screenshots of the page and of each section in
// $LATLAB_SCREENSHOTS, else in a temporary folder.
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
	if len(page.Problems) > 0 {
		t.Errorf("the page logged %d problem(s):\n%s", len(page.Problems), strings.Join(page.Problems, "\n"))
	}
}
