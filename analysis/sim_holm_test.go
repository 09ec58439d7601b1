package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latlab/latlab/spec"
)

// holmSim is what simulateHolm measured over its tables.
type holmSim struct {
	// rowCoverage is the share of rows whose interval at Holm's level
	// covers the row's true shift; jointHolm and joint95 the share of
	// tables where every row's interval, at Holm's level and at 95%,
	// covers its shift.
	rowCoverage, jointHolm, joint95 float64
	// falseAlarm is the share of tables with a row marked significant
	// whose true shift is 0; power the share of shifted rows marked.
	falseAlarm, power float64
	// disagree counts the rows whose interval at Holm's level excludes 0
	// without the mark, or includes it with the mark.
	disagree int
	// widened counts the rows whose interval was moved to reach 0.
	widened int
}

// simulateHolm runs 400 synthetic tables through Overheads: a baseline
// and variants at levels, n runs each, per-run p50s log-normal around
// 1 ms (σ 0.2 on the log scale) and the variant's shifted by
// shifts[variant][level] seconds; paired, both runs of a repetition are
// slowed alike (exponential, mean 0.5 ms). grid > 0 rounds every value to
// it, as a coarse histogram would, so that values tie.
func simulateHolm(t *testing.T, n int, shifts [][]float64, paired bool, grid float64, seed uint64) holmSim {
	t.Helper()
	const tables = 400
	rng := rand.New(rand.NewPCG(seed, 13))
	round := func(x float64) float64 {
		if grid > 0 {
			return grid * math.Round(x/grid)
		}
		return x
	}
	cell := func(values []float64) []Cell {
		c := Cell{Stat: spec.Stat{Name: "p50", Q: 0.5}, Values: values}
		if paired {
			for rep := range values {
				c.Reps = append(c.Reps, rep+1)
			}
		}
		return []Cell{c}
	}
	var s holmSim
	var rows, shifted int
	for range tables {
		slow := make([]float64, n)
		if paired {
			for rep := range slow {
				slow[rep] = 0.0005 * rng.ExpFloat64()
			}
		}
		draw := func(shift float64) []float64 {
			xs := make([]float64, n)
			for rep := range xs {
				xs[rep] = round(0.001*math.Exp(0.2*rng.NormFloat64()) + slow[rep] + shift)
			}
			return xs
		}
		var levels []LevelResult
		for l := range shifts[0] {
			levels = append(levels, LevelResult{Variant: "base", Level: Level{Rate: float64(100 * (l + 1))}, Latency: cell(draw(0))})
		}
		for v, vs := range shifts {
			for l, shift := range vs {
				levels = append(levels, LevelResult{Variant: string(rune('a' + v)), Level: Level{Rate: float64(100 * (l + 1))}, Latency: cell(draw(shift))})
			}
		}
		jointHolm, joint95, alarm := true, true, false
		for _, c := range Overheads(levels, "base") {
			if c.Name != "p50" {
				continue
			}
			shift := shifts[c.Variant[0]-'a'][int(c.Rate)/100-1]
			iv := c.CI()
			if !iv.OK || !c.CIOK || c.Holm.Level == 0 {
				t.Fatalf("n=%d: %s at %v has no interval at Holm's level %v", n, c.Variant, c.Level, c.Holm.Level)
			}
			rows++
			if iv.Lo <= shift && shift <= iv.Hi {
				s.rowCoverage++
			} else {
				jointHolm = false
			}
			if shift < c.AbsLo || c.AbsHi < shift {
				joint95 = false
			}
			if iv.Excludes0() != c.Significant {
				s.disagree++
			}
			if iv.Lo == 0 || iv.Hi == 0 {
				s.widened++
			}
			switch {
			case shift == 0 && c.Significant:
				alarm = true
			case shift != 0:
				shifted++
				if c.Significant {
					s.power++
				}
			}
		}
		s.jointHolm += b2f(jointHolm)
		s.joint95 += b2f(joint95)
		s.falseAlarm += b2f(alarm)
	}
	s.rowCoverage /= float64(rows)
	s.jointHolm /= tables
	s.joint95 /= tables
	s.falseAlarm /= tables
	if shifted > 0 {
		s.power /= float64(shifted)
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestHolmIntervalSimulation checks the intervals a table shows, at the
// level Holm's correction tests each row at, on tables of two variants
// at three levels (six p50 rows, one Holm family), unpaired and paired:
// every interval must exclude 0 exactly when its row is marked
// significant (values that tie on a 1 µs grid included), every row's
// interval must cover its true shift in at least 95% of tables less
// simulation noise, and all of a table's intervals must cover their
// shifts together at least as often as the unadjusted 95% intervals do,
// and in at least 85% of tables (step-down intervals promise no joint level;
// Bonferroni's would, but would disagree with Holm's marks). Without any shift, at most 7% of tables
// may have a significant row (Holm keeps the family's error at 5%).
func TestHolmIntervalSimulation(t *testing.T) {
	null := [][]float64{{0, 0, 0}, {0, 0, 0}}
	mixed := [][]float64{{0, 100e-6, 200e-6}, {0, 0, 300e-6}}
	for i, tc := range []struct {
		name   string
		n      int
		shifts [][]float64
		paired bool
		grid   float64
	}{
		{"unpaired 10, no shift", 10, null, false, 0},
		{"unpaired 10, three shifted", 10, mixed, false, 0},
		{"paired 10, no shift", 10, null, true, 0},
		{"paired 10, three shifted", 10, mixed, true, 0},
		{"unpaired 6, three shifted", 6, mixed, false, 0},
		{"paired 20, three shifted", 20, mixed, true, 0},
		{"unpaired 10, 1µs grid", 10, mixed, false, 1e-6},
		{"paired 10, 1µs grid", 10, mixed, true, 1e-6},
	} {
		s := simulateHolm(t, tc.n, tc.shifts, tc.paired, tc.grid, uint64(100+i))
		t.Logf("%-27s row coverage %.3f, joint %.3f (95%% intervals %.3f), false alarm %.3f, power %.3f, widened %d, disagree %d",
			tc.name, s.rowCoverage, s.jointHolm, s.joint95, s.falseAlarm, s.power, s.widened, s.disagree)
		if s.disagree > 0 {
			t.Errorf("%s: %d rows whose interval at Holm's level disagrees with the mark", tc.name, s.disagree)
		}
		if s.rowCoverage < 0.94 {
			t.Errorf("%s: intervals at Holm's level covered the true shift in %.1f%% of rows; want ≥ 94%%", tc.name, 100*s.rowCoverage)
		}
		if s.jointHolm < s.joint95 || s.jointHolm < 0.85 {
			t.Errorf("%s: all of a table's intervals covered together in %.1f%% of tables (95%% intervals: %.1f%%); want at least those and ≥ 85%%",
				tc.name, 100*s.jointHolm, 100*s.joint95)
		}
		if s.falseAlarm > 0.07 {
			t.Errorf("%s: %.1f%% of tables had a significant row without a shift; want ≤ 7%%", tc.name, 100*s.falseAlarm)
		}
	}
}
