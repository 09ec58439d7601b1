package report_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/spec"
)

// TestFixtureDesigns checks that the Designs the report's fixtures carry
// are those spec.DesignOf derives from their specs, as latlab
// report reads a stored experiment.
func TestFixtureDesigns(t *testing.T) {
	for text, want := range report.FixtureDesigns {
		if diff := cmp.Diff(want, spec.DesignOf(text)); diff != "" {
			t.Errorf("spec %q (-fixture +DesignOf):\n%s", text, diff)
		}
	}
}
