package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// mixedRuns returns runs of two variants at one level that differ widely
// in latency and in sample count, so that each has its own pattern of n/a
// percentiles, some flagged. Each run's own percentiles are ordered: they
// come from one histogram.
func mixedRuns(rng *rand.Rand) []Run {
	counts := []int{1, 5, 15, 40, 150, 1200}
	var runs []Run
	for _, v := range []string{"plain", "filter"} {
		for rep := range 3 + rng.IntN(6) {
			n := counts[rng.IntN(len(counts))]
			scale := float64(time.Millisecond) * math.Exp(3*rng.Float64())
			h := record.NewHistogram()
			for range n {
				_ = h.RecordValue(int64(scale * math.Exp(rng.NormFloat64())))
			}
			r := Run{ID: int64(len(runs) + 1), Trial: store.Trial{Variant: v, Level: record.Level{Rate: 100}, Rep: rep}, Status: store.Done,
				RunPercentiles: ReadRun(h, h)}
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

// TestAggregateRowOneSetOfRuns checks that every cell of a level, latency
// and service time, stands on all its counted runs, and that its medians
// are therefore ordered like each run's percentiles.
func TestAggregateRowOneSetOfRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 2))
	var names []string
	for _, s := range spec.Stats {
		names = append(names, s.Name)
	}
	for range 100 {
		runs := mixedRuns(rng)
		for _, include := range []bool{false, true} {
			for _, l := range Aggregate(runs, Options{IncludeFlagged: include}) {
				for _, cells := range [][]Cell{l.Latency, l.Service} {
					var row []float64
					for _, c := range cells {
						if len(c.Values) > 0 && len(c.Values) != len(l.RunIDs) {
							t.Fatalf("%s %s: %s over %d of %d runs", l.Variant, l.Level, c.Name, len(c.Values), len(l.RunIDs))
						}
						if c.Runs != len(l.RunIDs) || (len(c.Values) == 0) != (c.NA > 0 || c.Runs == 0) {
							t.Fatalf("%s %s: %s has %d values, %d runs, %d n/a; counted %d", l.Variant, l.Level, c.Name, len(c.Values), c.Runs, c.NA, len(l.RunIDs))
						}
						row = append(row, c.Median)
					}
					ordered(t, l.Variant+" "+l.Level.String(), names, row)
				}
			}
		}
	}
}
