package demo

import (
	"testing"

	"github.com/latlab/latlab/spec"
)

func TestDesignNote(t *testing.T) {
	for _, tt := range []struct {
		runs int
		want string
	}{
		{3, "quick: 3 runs a level, too few for a 95% CI of the median (6) or of an overhead (4 a side), or a test (5); latlab demo runs 6."},
		{5, "quick: 5 runs a level, too few for a 95% CI of the median (6); latlab demo runs 6."},
		{6, ""},
	} {
		if got := designNote(&spec.Spec{Runs: tt.runs}); got != tt.want {
			t.Errorf("designNote(%d runs) = %q, want %q", tt.runs, got, tt.want)
		}
	}
}
