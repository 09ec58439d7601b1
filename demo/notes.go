package demo

import (
	"fmt"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/spec"
)

// Runs of a level the summary and the overhead table need (analysis):
// a 95% CI of the median from 6, of an overhead from 4 a side, a test
// from 5.
const (
	ciMedianRuns   = 6
	ciOverheadRuns = 4
)

// designNote says what a study of spec's runs a level cannot show, or "":
// the quick demo's three runs are too few for any interval.
func designNote(spec *spec.Spec) string {
	if spec.Runs >= ciMedianRuns {
		return ""
	}
	what := "a 95% CI of the median (6)"
	if spec.Runs < ciOverheadRuns {
		what = fmt.Sprintf("a 95%% CI of the median (%d) or of an overhead (%d a side), or a test (%d)",
			ciMedianRuns, ciOverheadRuns, analysis.MinRuns)
	}
	return fmt.Sprintf("quick: %d runs a level, too few for %s; latlab demo runs %d.", spec.Runs, what, ciMedianRuns)
}
