package demo

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// TestHeadlineBaselineOrdered checks that the headline's baseline p50 and
// p90 of a row, from runs of mixed sample counts (so mixed n/a
// percentiles), some flagged, stand on the same runs: p50 ≤ p90 wherever
// both are numbers.
func TestHeadlineBaselineOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 6))
	cols := regexp.MustCompile(`\s{2,}`)
	counts := []int{5, 15, 40, 150, 400, 1000}
	checked := 0
	for i := range 80 {
		exp := &analysis.Experiment{}
		for _, v := range []string{"plain", "proxy"} {
			for rep := range 3 + rng.IntN(5) {
				h := record.NewHistogram()
				n := counts[rng.IntN(len(counts))]
				scale := float64(time.Millisecond) * math.Exp(3*rng.Float64())
				if n < 10 {
					scale *= 20 // a run that completed few requests, as an overloaded one does, was slow
				}
				for range n {
					_ = h.RecordValue(int64(scale * math.Exp(rng.NormFloat64())))
				}
				r := analysis.Run{ID: int64(len(exp.Runs) + 1), Trial: store.Trial{Variant: v, Level: record.Level{Rate: 100}, Rep: rep}, Status: store.Done,
					RunPercentiles: analysis.ReadRun(h, h)}
				if rng.IntN(4) == 0 {
					r.Flags = []store.Flag{{Name: "generator_saturated", Reason: "behind"}}
				}
				exp.Runs = append(exp.Runs, r)
			}
		}
		r, err := report.NewExperiment(exp, report.ExperimentOptions{Baseline: "plain", IncludeFlagged: i%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := writeHeadline(&b, reports{sweep: r}, Outcome{}, "spec.yaml"); err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(b.String()) {
			f := cols.Split(strings.TrimSpace(line), -1)
			if len(f) != 6 || f[0] != "proxy" {
				continue
			}
			p50, p90 := headlineSeconds(t, f[2]), headlineSeconds(t, f[4])
			if p50 > p90 {
				t.Fatalf("experiment %d: baseline p50 %s above p90 %s in %q", i, f[2], f[4], line)
			}
			if !math.IsNaN(p50 + p90) {
				checked++
			}
		}
	}
	if checked < 10 {
		t.Errorf("%d rows with both numbers checked, want 10", checked)
	}
}

// headlineSeconds reads a baseline cell of the headline, NaN for n/a.
func headlineSeconds(t *testing.T, cell string) float64 {
	t.Helper()
	if cell == "n/a" {
		return math.NaN()
	}
	d, err := time.ParseDuration(cell)
	if err != nil {
		t.Fatalf("cell %q: %v", cell, err)
	}
	return d.Seconds()
}
