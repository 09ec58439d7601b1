package analysis

import (
	"fmt"
	"math"
	"slices"
)

// NAText says in how many of c's runs its quantile is n/a: "n/a in every
// run", "n/a in 2 of 5 runs".
func (c Cell) NAText() string {
	if c.NA == c.Runs {
		return "n/a in every run"
	}
	return fmt.Sprintf("n/a in %d of %d runs", c.NA, c.Runs)
}

// Band is the interval around c's median that judgements and plots
// use: its 95% CI, or the range of the runs when there are too few for
// one; NaN without values.
func (c Cell) Band() (lo, hi float64) {
	if c.CIOK {
		return c.Lo, c.Hi
	}
	if len(c.Values) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Min(c.Values), slices.Max(c.Values)
}

// ErrorBand is the range of the error ratios of the runs counted at l;
// NaN without any.
func (l LevelResult) ErrorBand() (lo, hi float64) {
	if len(l.ErrorRatios) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Min(l.ErrorRatios), slices.Max(l.ErrorRatios)
}
