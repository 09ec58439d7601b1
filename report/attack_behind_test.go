package report

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// behindResult records n requests of an open loop at rate, the i-th due
// at i×gap and sent lag after it, with unsent more due but never sent.
func behindResult(n int, rate float64, gap, lag time.Duration, unsent int64) *record.Result {
	rec := record.NewRecorder(time.Now(), record.Config{})
	for i := range n {
		s := &record.Sample{Intended: time.Duration(i) * gap, Code: 200}
		s.Sent = s.Intended + lag
		s.Done = s.Sent + time.Millisecond
		rec.Sent()
		rec.Record(0, s)
	}
	res := rec.Stop()
	res.Mode, res.TargetRate, res.Concurrency, res.Unsent = "open", rate, 64, unsent
	return res
}

// The attack report warns that the generator held requests back when it
// sent fewer than 99% of the requests due, as the run's
// generator_saturated flag judges: a Poisson schedule whose 1,000 arrivals
// at 100/s happened to span 10.2 s sent every request due and is not
// behind, though 1,000 over that span is 98/s.
func TestAttackBehind(t *testing.T) {
	const held = "held requests back"
	for _, tc := range []struct {
		name string
		res  *record.Result
		want []string // substrings of the warnings, in order; none for no warning
	}{
		{"on time", behindResult(1000, 100, 10*time.Millisecond, 0, 0), nil},
		{"a long poisson span", behindResult(1000, 100, 10200*time.Microsecond, 0, 0), nil},
		{"unsent", behindResult(1000, 100, 10*time.Millisecond, 0, 50),
			[]string{"sent 95.24/s, 95.2% of the intended 100/s: the generator or the in-flight cap " + held,
				"50 requests were due before the end but never sent"}},
		{"within the share", behindResult(1000, 100, 10*time.Millisecond, 0, 10), []string{"10 requests were due"}},
		{"late", behindResult(1000, 100, 10*time.Millisecond, 6*time.Millisecond, 0), []string{"(over 5.000ms): requests left late"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := warnings(tc.res)
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q; want %d like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d: %q; want it to hold %q", i, got[i], w)
				}
			}
		})
	}
}
