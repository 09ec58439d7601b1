package report

import (
	"fmt"
	"math"

	"github.com/latlab/latlab/analysis"
)

// overheadMethods says how the overhead table compares runs, paired and
// unpaired, its lines joined by sep: "\n" for text, " " for HTML.
func overheadMethods(sep string) string {
	return `Paired ("N pairs"): the Hodges–Lehmann centre of the differences between runs of one repetition,` + sep +
		"with the signed-rank test's CI and p. Unpaired: the Hodges–Lehmann shift of the per-run" + sep +
		"percentiles, with the Mann-Whitney U test's."
}

// comparedText is the marker of how d compared its runs: "10 pairs",
// "unpaired", or "-" when nothing was compared.
func comparedText(d analysis.Diff) string {
	switch {
	case math.IsNaN(d.Abs):
		return "-"
	case d.Method == analysis.MethodPaired:
		return fmt.Sprintf("%d pairs", d.Pairs)
	}
	return "unpaired"
}
