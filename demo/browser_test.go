package demo

import (
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/browsertest"
)

// checkInBrowser opens page in headless Chromium: every plot must be laid
// out, with data drawn unless the report left runs out (leftOut, which the
// page then says: see checkNotes), and the page must log no error or
// warning. Screenshots go to $LATLAB_SCREENSHOTS when it is set.
func checkInBrowser(t *testing.T, page string, leftOut int) {
	t.Helper()
	got := browsertest.Open(t, page, os.Getenv("LATLAB_SCREENSHOTS"))
	if len(got.Plots) < 8 {
		t.Errorf("%s: the browser found %d plots, want at least 8", page, len(got.Plots))
	}
	for _, p := range got.Plots {
		// A series of one point (the ramp has one level) is a marker on a
		// path of no extent; a longer one must be drawn as a line.
		lines := p.Points > p.Series
		if p.Points == 0 && leftOut > 0 {
			// Every run it would draw was flagged on a busy machine.
			t.Logf("%s: plot %s is empty: %d runs left out", page, p.ID, leftOut)
			continue
		}
		if p.Points == 0 || p.Series == 0 || lines && p.Paths == 0 || p.Width < 200 || p.Height < 100 {
			t.Errorf("%s: plot %s is not drawn with data: %+v", page, p.ID, p)
		}
	}
	browsertest.CheckLayout(t, got)
	if len(got.Problems) > 0 {
		t.Errorf("%s logged %d problem(s):\n%s", page, len(got.Problems), strings.Join(got.Problems, "\n"))
	}
}
