package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/store"
)

// pairedRuns returns reps runs of plain and of proxy at each of levels,
// repetition r of both slowed by the same offset (r odd: +3 ms), proxy's
// every quantile 100 µs above plain's, plus a jitter of r µs.
func pairedRuns(reps int, levels ...Level) []Run {
	var out []Run
	for _, l := range levels {
		for rep := 1; rep <= reps; rep++ {
			offset := time.Duration(rep%2) * 3 * time.Millisecond
			for i, v := range []string{"plain", "proxy"} {
				r := fakeRun(v, l, rep, time.Millisecond)
				r.ID = int64(len(out) + 1)
				for j := range r.Latency {
					r.Latency[j].Latency += offset + time.Duration(i*(100+rep%3))*time.Microsecond
				}
				out = append(out, r)
			}
		}
	}
	return out
}

func TestOverheadsPaired(t *testing.T) {
	r200 := Level{Rate: 200}
	flag := func(runs []Run, variant string, rep int) []Run {
		for i := range runs {
			if runs[i].Variant == variant && runs[i].Rep == rep {
				runs[i].Flags = []store.Flag{{Name: "errors", Reason: "2% errors"}}
			}
		}
		return runs
	}
	for _, tc := range []struct {
		name        string
		runs        []Run
		opt         Options
		method      Method
		pairs, n, b int
		significant bool
	}{
		{"ten repetitions pair", pairedRuns(10, r100), Options{}, MethodPaired, 10, 10, 10, true},
		{"a flagged run drops its pair", flag(pairedRuns(10, r100), "plain", 3), Options{}, MethodPaired, 9, 10, 9, true},
		{"five pairs: no paired interval", pairedRuns(5, r100), Options{}, MethodUnpaired, 5, 5, 5, false},
		// Four rows a quantile: a paired test needs 4·2/2ⁿ < 5%, 8 pairs.
		{"seven pairs, Holm over four", pairedRuns(7, r100, r200, c8, Level{Rate: 400}), Options{}, MethodUnpaired, 7, 7, 7, false},
		{"eight pairs, Holm over four", pairedRuns(8, r100, r200, c8, Level{Rate: 400}), Options{}, MethodPaired, 8, 8, 8, true},
		{"grouped plan", pairedRuns(10, r100), Options{Unpaired: true}, MethodUnpaired, 0, 10, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := find(t, Overheads(Aggregate(tc.runs, tc.opt), "plain"), "proxy", "p50")
			if c.Method != tc.method || c.Pairs != tc.pairs || c.N != tc.n || c.BaselineN != tc.b || c.Significant != tc.significant {
				t.Errorf("%s with %d pairs, %d against %d runs, significant %v; want %s, %d, %d against %d, %v (%s)",
					c.Method, c.Pairs, c.N, c.BaselineN, c.Significant, tc.method, tc.pairs, tc.n, tc.b, tc.significant, c.Diff)
			}
			if c.Method == MethodPaired && (c.AbsLo > 100.5e-6 || c.AbsHi < 100.5e-6 || c.AbsHi-c.AbsLo > 5e-6) {
				t.Errorf("interval [%v, %v]; want it narrow around 100.5 µs", c.AbsLo, c.AbsHi)
			}
		})
	}
}

func TestPairUp(t *testing.T) {
	cell := func(reps []int, values ...float64) Cell { return Cell{Values: values, Reps: reps} }
	for _, tc := range []struct {
		name   string
		vc, bc Cell
		v, b   []float64
	}{
		{"by repetition", cell([]int{2, 1, 3}, 20, 10, 30), cell([]int{1, 2, 3}, 1, 2, 3), []float64{20, 10, 30}, []float64{2, 1, 3}},
		{"one side lacks a repetition", cell([]int{1, 2, 3}, 10, 20, 30), cell([]int{1, 3}, 1, 3), []float64{10, 30}, []float64{1, 3}},
		{"a repetition twice", cell([]int{1, 1}, 10, 11), cell([]int{1, 2}, 1, 2), nil, nil},
		{"no repetitions", Cell{Values: []float64{1, 2}}, cell([]int{1, 2}, 1, 2), nil, nil},
	} {
		v, b := pairUp(tc.vc, tc.bc)
		if !equal(v, tc.v) || !equal(b, tc.b) {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, v, b, tc.v, tc.b)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPairingReach(t *testing.T) {
	if got := PairingReach(Overheads(Aggregate(pairedRuns(10, r100), Options{}), "plain")); got != "" {
		t.Errorf("paired table: %q; want none", got)
	}
	got := PairingReach(Overheads(Aggregate(pairedRuns(7, r100, r200, c8, Level{Rate: 400}), Options{}), "plain"))
	if !strings.HasPrefix(got, "16 overhead row(s) compared unpaired though their runs pair by repetition: at most 7 pairs, and a paired comparison in this table needs 8") {
		t.Errorf("got %q", got)
	}
}
