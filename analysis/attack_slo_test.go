package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latlab/latlab/record"
)

// rankResult is a run of n requests whose latencies are 1 ms, 2 ms, …,
// n ms, failed of them unsuccessful: the value of rank k is k ms, within
// the histogram's 3 significant digits.
func rankResult(n, failed int64) *record.Result {
	res := &record.Result{Latency: record.NewHistogram(), Requests: n, Unsuccessful: failed}
	for i := int64(1); i <= n; i++ {
		_ = res.Latency.RecordValue(i * int64(time.Millisecond))
	}
	return res
}

func TestJudgeAttack(t *testing.T) {
	nan := math.NaN()
	type check struct {
		Value, Bound float64
		Judged       string
		Met          bool
	}
	tests := []struct {
		name   string
		res    *record.Result
		slo    string
		strict bool
		want   check
	}{
		// Of 100 samples p50 is x(50) and its 95% interval [x(40), x(61)]:
		// the bound passes a limit the value breaks.
		{"p50 bound below the limit", rankResult(100, 0), "p50<45ms", false, check{0.050, 0.040, "95% CI lower bound", true}},
		{"p50 strict", rankResult(100, 0), "p50<45ms", true, check{0.050, 0.050, "the run's p50", false}},
		{"p50 bound past the limit", rankResult(100, 0), "p50<35ms", false, check{0.050, 0.040, "95% CI lower bound", false}},
		{"p99 met", rankResult(100, 0), "p99<1s", false, check{0.099, 0.097, "95% CI lower bound", true}},
		// Five samples bound no median from below: the smallest stands in.
		{"p50 of 5", rankResult(5, 0), "p50<2ms", false, check{0.003, 0.001, "smallest sample (5: too few for a 95% bound)", true}},
		{"p99.9 n/a", rankResult(100, 0), "p99.9<1s", false, check{nan, nan, "n/a: too few samples (100, needs 1000)", false}},
		{"p99 n/a strict", rankResult(99, 0), "p99<1s", true, check{nan, nan, "n/a: too few samples (99, needs 100)", false}},
		{"no samples", rankResult(0, 0), "p50<1s", false, check{nan, nan, "n/a: too few samples (none)", false}},
		{"max", rankResult(100, 0), "max<99ms", false, check{0.100, 0.100, "largest sample", false}},
		// 2 of 100: Wilson's interval is [0.55%, 7.0%].
		{"errors bound below the limit", rankResult(100, 2), "errors<1%", false, check{0.02, 0.0055, "95% CI lower bound (Wilson)", true}},
		{"errors strict", rankResult(100, 2), "errors<1%", true, check{0.02, 0.02, "the run's ratio", false}},
		{"errors past the limit", rankResult(100, 10), "errors<1%", false, check{0.10, 0.0552, "95% CI lower bound (Wilson)", false}},
		{"errors none", rankResult(100, 0), "errors<0%", false, check{0, 0, "95% CI lower bound (Wilson)", true}},
		{"errors of no requests", rankResult(0, 0), "errors<1%", false, check{nan, nan, "n/a: no requests completed", false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slo, err := ParseSLO(tt.slo)
			if err != nil {
				t.Fatal(err)
			}
			a := JudgeAttack(tt.res, slo, tt.strict)
			if len(a.Checks) != 1 || a.Checks[0].Limit != slo.String() {
				t.Fatalf("checks %+v, want one of %s", a.Checks, tt.slo)
			}
			c := a.Checks[0]
			got := check{c.Value, c.Bound, c.Judged, c.Met}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0.002, 0)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if a.Met() != c.Met || (a.Err() == nil) != c.Met {
				t.Errorf("Met %v, Err %v; want both to say %v", a.Met(), a.Err(), c.Met)
			}
		})
	}
}

// TestAttackSLOErr checks that the error of a broken SLO names the SLO
// and, in its order, every limit broken and no other.
func TestAttackSLOErr(t *testing.T) {
	slo, err := ParseSLO("p50<45ms,p99<80ms,p99.9<1s,errors<1%")
	if err != nil {
		t.Fatal(err)
	}
	want := "SLO p50<45ms,p99<80ms,p99.9<1s,errors<1% broken: p99<80ms, p99.9<1s"
	if err := JudgeAttack(rankResult(100, 2), slo, false).Err(); err == nil || err.Error() != want {
		t.Errorf("Err() = %v, want %s", err, want)
	}
}
