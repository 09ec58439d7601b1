package analysis

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/latlab/latlab/units"
)

// Alpha is the significance level of every test in this package.
const Alpha = 0.05

// MinRuns is the fewest runs per side below which Overhead warns that its
// test, exact as it is, has little power and its interval is wide.
const MinRuns = 5

// Floor is the smallest difference latlab claims to resolve: histograms
// start at 1 µs.
const Floor = 1e-6

// A Diff is the overhead of a variant against a baseline: the shift of
// the variant's per-run values against the baseline's, or, paired, the
// centre of the differences between runs of one repetition. Values are in
// the units given to Overhead (seconds for latency).
type Diff struct {
	N, BaselineN int     // runs of the variant and of the baseline
	Baseline     float64 // median of the baseline's runs
	// Method is how the runs were compared: MethodPaired or
	// MethodUnpaired.
	Method Method
	// Pairs is how many pairs of runs, one of each side from the same
	// repetition, the comparison found; a paired Diff stands on them
	// alone. 0 when the runs carry no repetitions that pair.
	Pairs int
	// Abs is the Hodges–Lehmann shift (the median of every variant −
	// baseline difference) and [AbsLo, AbsHi] its exact Mann-Whitney 95%
	// interval (see HodgesLehmann); paired, the median of the Walsh
	// averages of the pairs' differences and its exact signed-rank
	// interval (see SignedRank).
	Abs, AbsLo, AbsHi float64
	// Rel is the relative change of the variant against the baseline
	// (0.1 is +10%), RelLo and RelHi its 95% interval: the Hodges–Lehmann
	// shift of the logarithms, the median of every variant / baseline
	// ratio (paired: the centre of the pairs' log ratios), less one. A
	// ratio of latencies is positive, so none of them can pass −100%, and
	// the baseline's own spread is carried into them. RelOK is false when
	// a value is not positive.
	Rel, RelLo, RelHi float64
	RelOK             bool
	// CIOK is false when there are too few runs for a 95% interval (fewer
	// than 4 a side, or MinPairs pairs); the interval fields are then 0.
	CIOK bool
	// P is the two-sided Mann-Whitney U p-value of benchmath's
	// AssumeNothing comparison (exact for small samples, ties included),
	// or paired the signed-rank test's (see SignedRank); PAdj the
	// Holm-adjusted one once a table is corrected, else P.
	P, PAdj float64
	// Significant is PAdj < Alpha.
	Significant bool
	// Holm is the interval at the level Holm's correction tests the
	// comparison at (see HolmLevel): it excludes 0 exactly when the
	// comparison is Significant. Its Level is 0 until a table corrects the
	// comparison (see Overheads); CI gives the interval to show either way.
	Holm Interval
	// Reason says why there is no difference, no interval, or no test
	// that could reject at Alpha with these runs whatever they measured;
	// "" when none of these holds.
	Reason Reason
	// LeftOut and BaselineLeftOut count the runs of each side left out as
	// flagged or unfinished, NA and BaselineNA those whose percentile is
	// n/a; Family is the number of comparisons Holm corrects together.
	// Overheads sets them; they say why when Reason is set.
	LeftOut, BaselineLeftOut, NA, BaselineNA, Family int
	// MinP is the smallest p-value, Holm-adjusted in a table, that any
	// outcome could give with these runs: no test can reject when it is
	// Alpha or more.
	MinP     float64
	Warnings []string
}

// A Reason is why a Diff is n/a or cannot conclude. Its text is what the
// JSON report gives.
type Reason string

// The reasons of a Diff.
const (
	// ReasonNoRuns: a side has no runs at the level.
	ReasonNoRuns Reason = "no_runs"
	// ReasonFlagged: every run of a side was flagged or did not finish,
	// and was left out.
	ReasonFlagged Reason = "all_runs_flagged"
	// ReasonNA: the percentile is n/a, too few samples, in some run of a
	// side.
	ReasonNA Reason = "percentile_na"
	// ReasonFewRuns: too few runs a side for a 95% interval, or for any
	// outcome of the test to reach significance (after Holm, in a table).
	ReasonFewRuns Reason = "too_few_runs"
)

// A Method is how a Diff compares its runs. Its text is what the JSON
// report gives.
type Method string

// The methods of a Diff.
const (
	// MethodUnpaired: every variant run against every baseline run
	// (Hodges–Lehmann shift, Mann-Whitney interval and test).
	MethodUnpaired Method = "unpaired"
	// MethodPaired: each variant run against the baseline's run of the
	// same repetition (Walsh-average centre, signed-rank interval and
	// test), so that what a repetition shares cancels out.
	MethodPaired Method = "paired"
)

// Overhead compares variant's per-run values of one quantile at one level
// with baseline's, unpaired. It warns when either side has fewer than
// MinRuns runs, when the difference is below Floor, and when the 95%
// interval and the test disagree.
func Overhead(variant, baseline []float64) Diff {
	d := overhead(variant, baseline, Floor)
	d.disagree()
	return d
}

// overhead is Overhead with a measurement floor: differences smaller in
// magnitude than floor are flagged as below it.
func overhead(variant, baseline []float64, floor float64) Diff {
	d := Diff{N: len(variant), BaselineN: len(baseline), Method: MethodUnpaired, P: math.NaN(), PAdj: math.NaN(), MinP: math.NaN()}
	d.Baseline = Median(baseline)
	if d.N == 0 || d.BaselineN == 0 {
		d.Abs, d.Rel, d.Reason = math.NaN(), math.NaN(), ReasonNoRuns
		d.Warnings = append(d.Warnings, d.Why())
		return d
	}
	d.Abs, d.AbsLo, d.AbsHi, d.CIOK = HodgesLehmann(variant, baseline)
	if positive(variant, baseline) {
		d.RelOK = true
		r, lo, hi, _ := HodgesLehmann(logs(variant), logs(baseline))
		d.Rel, d.RelLo, d.RelHi = math.Expm1(r), math.Expm1(lo), math.Expm1(hi)
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = Alpha
	c := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(slices.Clone(variant), &th),
		benchmath.NewSample(slices.Clone(baseline), &th))
	// With ties, go-moremath's U test can answer 0 for fully separated
	// samples; no two-sided rank test can go below 2/C(n+m, n).
	d.MinP = minRankP(len(variant), len(baseline))
	p := max(c.P, d.MinP)
	d.P, d.PAdj = p, p
	d.Significant = d.P < Alpha
	if !d.CIOK || d.MinP >= Alpha {
		d.Reason = ReasonFewRuns
	}
	if d.N < MinRuns || d.BaselineN < MinRuns {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%d against %d runs, fewer than %d a side: the test is exact but weak and the interval wide", d.N, d.BaselineN, MinRuns))
	}
	for _, err := range c.Warnings {
		d.Warnings = append(d.Warnings, err.Error())
	}
	d.check(floor)
	return d
}

// check warns when d is below floor.
func (d *Diff) check(floor float64) {
	if math.Abs(d.Abs) < floor {
		d.Warnings = append(d.Warnings, fmt.Sprintf("difference %s is below the measurement floor %s", units.Seconds(d.Abs), units.Seconds(floor)))
	}
}

// disagree warns when d's 95% interval and its test disagree. A table
// shows the interval at Holm's level instead, made to agree (see
// Diff.atHolm); a comparison on its own shows this one.
func (d *Diff) disagree() {
	if excludes0 := d.AbsLo > 0 || d.AbsHi < 0; d.CIOK && excludes0 != (d.P < Alpha) {
		// The interval is interpolated to 95% between two exact levels; the
		// test is exact at its own: near the edge the two can disagree.
		verdict := "excludes 0 while the exact test does not reject"
		if !excludes0 {
			verdict = "includes 0 while the exact test rejects"
		}
		d.Warnings = append(d.Warnings, fmt.Sprintf("the 95%% interval %s (p=%.3g): a borderline difference, interpolated between the exact levels %s allow", verdict, d.P, d.compared()))
	}
}

// compared says what d stands on: "5 against 5 runs", or paired "10
// pairs".
func (d Diff) compared() string {
	switch {
	case d.Method != MethodPaired:
	case d.Pairs == 1:
		return "1 pair"
	default:
		return fmt.Sprintf("%d pairs", d.Pairs)
	}
	return fmt.Sprintf("%d against %d runs", d.N, d.BaselineN)
}

// String states the verdict in one sentence with the interval CI gives,
// named by its level: "+12.3µs (+4.1%), 98.3% CI +8.0µs to +15.0µs,
// p=0.002" when significant, "no detectable difference (97.5% CI −3.1µs
// to +4.2µs)" when a test could have found one and did not. When none could, it says why instead: "+9.500ms (+112%),
// inconclusive with 3 against 3 runs: a 95% CI needs 4 a side, a test
// able to reject at 5% needs 4 a side", "n/a: all 5 runs of the baseline
// flagged or unfinished, left out (--include-flagged counts them)".
func (d Diff) String() string {
	if math.IsNaN(d.Abs) {
		return "n/a: " + d.Why()
	}
	iv := d.CI()
	ci := levelText(iv.Level) + " CI n/a"
	if iv.OK {
		ci = fmt.Sprintf("%s CI %s to %s", levelText(iv.Level), units.Signed(iv.Lo), units.Signed(iv.Hi))
	}
	rel := ""
	if d.RelOK {
		rel = fmt.Sprintf(" (%+.3g%%)", 100*d.Rel)
	}
	switch {
	case d.Reason != "" && d.Significant:
		return fmt.Sprintf("%s%s, %s (%s), p=%.3g", units.Signed(d.Abs), rel, ci, d.Why(), d.PAdj)
	case d.Reason != "" && iv.OK:
		return fmt.Sprintf("%s%s, %s, inconclusive %s", units.Signed(d.Abs), rel, ci, d.Why())
	case d.Reason != "":
		return fmt.Sprintf("%s%s, inconclusive %s", units.Signed(d.Abs), rel, d.Why())
	case !d.Significant && iv.Excludes0():
		// Only an interval no table corrected: the exact test and the
		// interpolated interval step differently near the edge.
		return fmt.Sprintf("not significant (p=%.3g, borderline), %s", d.P, ci)
	case !d.Significant:
		return "no detectable difference (" + ci + ")"
	}
	return fmt.Sprintf("%s%s, %s, p=%.3g", units.Signed(d.Abs), rel, ci, d.PAdj)
}

// minRankP is the smallest two-sided p-value a rank test of samples of n
// and m values can give: both tails of the one most extreme ordering,
// 2/C(n+m, n).
func minRankP(n, m int) float64 {
	lc, _ := math.Lgamma(float64(n + m + 1))
	ln, _ := math.Lgamma(float64(n + 1))
	lm, _ := math.Lgamma(float64(m + 1))
	return math.Min(1, 2*math.Exp(-(lc-ln-lm)))
}
