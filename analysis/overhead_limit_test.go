package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/store"
)

// levelRuns returns reps done runs of variant at 100/s whose every
// quantile is base plus rep microseconds; flagged ones carry a
// generator_saturated flag, and na ones have p99.9 n/a.
func levelRuns(variant string, base time.Duration, reps, flagged, na int) []Run {
	var out []Run
	for rep := range reps {
		r := fakeRun(variant, r100, rep, base)
		r.ID = int64(len(variant)*1000 + rep)
		if rep < flagged {
			r.Flags = []store.Flag{{Name: "generator_saturated", Reason: "behind"}}
		}
		if rep < na {
			r.Latency[4].OK = false
		}
		out = append(out, r)
	}
	return out
}

// find returns the comparison of variant at stat in cs.
func find(t *testing.T, cs []Comparison, variant, stat string) Comparison {
	t.Helper()
	for _, c := range cs {
		if c.Variant == variant && c.Name == stat {
			return c
		}
	}
	t.Fatalf("no comparison of %s %s", variant, stat)
	return Comparison{}
}

// TestOverheadSaysWhy checks that a comparison no test could decide never
// reads "no detectable difference", and says why in words and in Reason.
func TestOverheadSaysWhy(t *testing.T) {
	ms := time.Millisecond
	var many []Run
	many = append(many, levelRuns("plain", ms, 5, 0, 0)...)
	for _, v := range []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg", "hhhhhhhh", "iiiiiiiii"} {
		many = append(many, levelRuns(v, 2*ms, 5, 0, 0)...)
	}
	for _, tc := range []struct {
		name    string
		runs    []Run
		opt     Options
		variant string
		stat    string
		reason  Reason
		says    string
	}{
		{"three a side", append(levelRuns("plain", ms, 3, 0, 0), levelRuns("proxy", 2*ms, 3, 0, 0)...), Options{}, "proxy", "p50", ReasonFewRuns,
			"+1.000ms (+99.9%), inconclusive with 3 against 3 runs: a 95% CI needs 4 a side, a test able to reject at 5% needs 4 a side"},
		{"flagged left out", append(levelRuns("plain", ms, 5, 2, 0), levelRuns("proxy", 2*ms, 3, 0, 0)...), Options{}, "proxy", "p50", ReasonFewRuns,
			"+998µs (+99.5%), inconclusive with 3 against 3 runs: a 95% CI needs 4 a side, a test able to reject at 5% needs 4 a side " +
				"(flagged or unfinished runs left out: 2 of the baseline; --include-flagged counts them)"},
		{"baseline all flagged", append(levelRuns("plain", ms, 5, 5, 0), levelRuns("proxy", 2*ms, 5, 0, 0)...), Options{}, "proxy", "p90", ReasonFlagged,
			"n/a: all 5 runs of the baseline flagged or unfinished, left out (--include-flagged counts them)"},
		{"flagged counted", append(levelRuns("plain", ms, 5, 5, 0), levelRuns("proxy", 2*ms, 5, 0, 0)...), Options{IncludeFlagged: true}, "proxy", "p90", "",
			"+1.500ms (+99.9%), 95% CI +1.498ms to +1.502ms, p=0.00794"},
		{"percentile n/a", append(levelRuns("plain", ms, 5, 0, 2), levelRuns("proxy", 2*ms, 5, 0, 0)...), Options{}, "proxy", "p99.9", ReasonNA,
			"n/a: the percentile is n/a (too few samples) in 2 run(s) of the baseline"},
		{"Holm over nine", many, Options{}, "a", "p50", ReasonFewRuns,
			"+1.000ms (+99.8%), 95% CI +998µs to +1.002ms, inconclusive with 5 against 5 runs: a test able to reject at 5% after Holm over 9 comparisons needs 6 a side"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := find(t, Overheads(Aggregate(tc.runs, tc.opt), "plain"), tc.variant, tc.stat)
			if c.Reason != tc.reason || c.Diff.String() != tc.says {
				t.Errorf("reason %q, %q\nwant %q, %q", c.Reason, c.Diff.String(), tc.reason, tc.says)
			}
			if tc.reason != "" && strings.Contains(c.Diff.String(), "no detectable") {
				t.Errorf("%q claims no difference where no test could find one", c.Diff.String())
			}
			for _, w := range c.Warnings {
				if strings.Contains(w, "no runs to compare") {
					t.Errorf("warning %q, where the verdict says %q", w, c.Diff.String())
				}
			}
		})
	}
}

// TestRelativeBounds checks that the relative change and its interval
// never pass −100%, as no latency can go below 0, and that the interval
// holds the estimate, for samples whose spread dwarfs their medians.
func TestRelativeBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 4))
	sample := func(n int, scale float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = scale * math.Exp(2*rng.NormFloat64())
		}
		return out
	}
	for range 500 {
		v, b := sample(4+rng.IntN(6), 1e-3), sample(4+rng.IntN(6), 1e-3*math.Exp(2*rng.NormFloat64()))
		d := Overhead(v, b)
		if !d.RelOK || !d.CIOK {
			t.Fatalf("%v against %v: relative %v, CI %v; want both", v, b, d.RelOK, d.CIOK)
		}
		if d.RelLo <= -1 || d.RelLo > d.Rel || d.Rel > d.RelHi {
			t.Fatalf("%v against %v: relative %+.1f%% [%+.1f%%, %+.1f%%]; want above −100%%, ordered", v, b, 100*d.Rel, 100*d.RelLo, 100*d.RelHi)
		}
	}
}

// TestHolmReasonUneven checks the rows of one Holm family with unequal
// runs: 3 a side cannot come out significant beside rows of 5 that take
// the smallest multipliers, while those rows can, and do.
func TestHolmReasonUneven(t *testing.T) {
	var runs []Run
	for _, rate := range []float64{50, 100, 200} {
		for _, v := range []struct {
			name    string
			base    time.Duration
			flagged int
		}{{"plain", time.Millisecond, 0}, {"proxy", 2 * time.Millisecond, 0}, {"filter", 3 * time.Millisecond, 2}} {
			for _, r := range levelRuns(v.name, v.base, 5, v.flagged, 0) {
				r.Rate, r.ID = rate, int64(len(runs)+1)
				runs = append(runs, r)
			}
		}
	}
	for _, c := range Overheads(Aggregate(runs, Options{}), "plain") {
		want := "with 3 against 5 runs: a test able to reject at 5% after Holm over 6 comparisons needs 5 a side " +
			"(flagged or unfinished runs left out: 2 of the variant; --include-flagged counts them)"
		if c.Variant == "proxy" {
			want = ""
		}
		if c.Why() != want || c.Significant != (c.Variant == "proxy") {
			t.Errorf("%s %s %s: significant %v, %q; want %q", c.Variant, c.Level, c.Name, c.Significant, c.Diff.String(), want)
		}
	}
}
