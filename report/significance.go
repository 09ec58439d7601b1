package report

import "github.com/latlab/latlab/analysis"

// sigLegend explains sigMark under every overhead table, text and HTML:
// the same mark as the demo's headline, CSV's and JSON's significant.
const sigLegend = "* significant after Holm's correction within its percentile's rows (adjusted p < 0.05); " +
	"each interval is at the level Holm tests its row at (1 − 0.05 × p / adjusted p), so it excludes 0 exactly when the row has a *."

// sigMark is " *" after a difference that stays significant after Holm's
// correction, "" after any other.
func sigMark(d analysis.Diff) string {
	if d.Significant {
		return " *"
	}
	return ""
}
