package benchcmp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// mixedRuns returns runs of two variants at one level that differ widely
// in latency and in sample count, so that each has its own pattern of n/a
// percentiles, some flagged. Each run's own percentiles are ordered: they
// come from one histogram.
func mixedRuns(rng *rand.Rand) []analysis.Run {
	counts := []int{1, 5, 15, 40, 150, 1200}
	var runs []analysis.Run
	for _, v := range []string{"plain", "filter"} {
		for rep := range 3 + rng.IntN(6) {
			n := counts[rng.IntN(len(counts))]
			scale := float64(time.Millisecond) * math.Exp(3*rng.Float64())
			h := record.NewHistogram()
			for range n {
				_ = h.RecordValue(int64(scale * math.Exp(rng.NormFloat64())))
			}
			r := analysis.Run{ID: int64(len(runs) + 1), Trial: store.Trial{Variant: v, Level: record.Level{Rate: 100}, Rep: rep}, Status: store.Done,
				RunPercentiles: analysis.ReadRun(h, h)}
			if rng.IntN(4) == 0 {
				r.Flags = []store.Flag{{Name: "generator_saturated", Reason: "behind"}}
			}
			runs = append(runs, r)
		}
	}
	return runs
}

// ordered fails t when two numbers of row, in quantile order, are out of
// order; NaN is no number.
func ordered(t *testing.T, what string, names []string, row []float64) {
	t.Helper()
	for i := range row {
		for j := i + 1; j < len(row); j++ {
			if !math.IsNaN(row[i]) && !math.IsNaN(row[j]) && row[i] > row[j] {
				t.Fatalf("%s: %s %g > %s %g", what, names[i], row[i], names[j], row[j])
			}
		}
	}
}

// TestCompareRunsOrdered checks that each side's centres of a row of
// latlab compare, read across its quantile tables, are ordered.
func TestCompareRunsOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 3))
	for range 100 {
		runs := mixedRuns(rng)
		for _, include := range []bool{false, true} {
			c, err := CompareRuns(RunSet{Name: "a", Runs: runs, Variant: "plain"}, RunSet{Name: "b", Runs: runs, Variant: "filter"},
				RunsOptions{IncludeFlagged: include})
			if err != nil {
				t.Fatal(err)
			}
			for side := range 2 {
				var row []float64
				for _, tab := range c.Tables {
					st := tab.Rows[0].Old
					if side == 1 {
						st = tab.Rows[0].New
					}
					v := math.NaN()
					if st != nil {
						v = st.Center
					}
					row = append(row, v)
				}
				ordered(t, []string{"old", "new"}[side], slices.Clone(spec.CompareStats), row)
			}
		}
	}
}
