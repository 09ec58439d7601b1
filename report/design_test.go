package report_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/report"
)

// TestFixtureDesigns checks that the Designs the report's fixtures carry
// are those experiment.SpecDesign derives from their specs, as latlab
// report reads a stored experiment.
func TestFixtureDesigns(t *testing.T) {
	for spec, want := range report.FixtureDesigns {
		if diff := cmp.Diff(want, experiment.SpecDesign(spec)); diff != "" {
			t.Errorf("spec %q (-fixture +SpecDesign):\n%s", spec, diff)
		}
	}
}
