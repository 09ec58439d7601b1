package load

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParseStages holds ParseStages (--stages) to schedules a pacer can
// follow: what it accepts is positive durations and finite rates of 0 or
// more, written back as DURATION:RATE it reads the same, whose total
// length does not overflow and whose requests are due in order; what it
// refuses gets a message.
func FuzzParseStages(f *testing.F) {
	for _, s := range []string{
		"30s:100", "30s:100,60s:1000", "1m:6000/m", "500ms:5/100ms", " 10s : 0 , 1s:1",
		"1h0m0.000000001s:1e-9", "1ns:1e300", "2562047h:1",
		"", ",", "30s", ":100", "30s:", "0s:100", "-1s:100", "30s:-1", "30s:NaN", "30s:Inf",
		"30s:100/0s", "30s:100/x", "30s:1e400", "x:1", "30s:100:200", "2562047h:1,2562047h:1",
	} {
		f.Add(s, 0.0)
	}
	f.Fuzz(func(t *testing.T, s string, start float64) {
		steps, err := ParseStages(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseStages(%q): empty error", s)
			}
			return
		}
		if len(steps) == 0 {
			t.Fatalf("ParseStages(%q): no stages and no error", s)
		}
		parts := make([]string, len(steps))
		var total time.Duration
		for i, st := range steps {
			if st.Duration <= 0 || st.Target < 0 || math.IsInf(st.Target, 0) || math.IsNaN(st.Target) {
				t.Fatalf("ParseStages(%q): stage %d is %+v", s, i+1, st)
			}
			if total += st.Duration; total <= 0 {
				t.Fatalf("ParseStages(%q): the stages' length overflows", s)
			}
			parts[i] = st.Duration.String() + ":" + strconv.FormatFloat(st.Target, 'g', -1, 64)
		}
		w := strings.Join(parts, ",")
		if back, err := ParseStages(w); err != nil || !slices.Equal(back, steps) {
			t.Fatalf("ParseStages(%q) = %+v, written %q, reads back as %+v, %v", s, steps, w, back, err)
		}
		if start < 0 || math.IsInf(start, 0) || math.IsNaN(start) {
			start = 0
		}
		p := Stages{Start: start, Steps: steps}
		if got := p.Length(); got != total {
			t.Fatalf("Length() = %v, want %v", got, total)
		}
		var last time.Duration
		for i := range int64(64) {
			at, ok := p.Due(i)
			if !ok {
				break
			}
			if at < last || at > total {
				t.Fatalf("ParseStages(%q), start %g: request %d due at %v, after %v and within %v", s, start, i, at, last, total)
			}
			last = at
		}
	})
}

// FuzzParseRamp holds ParseRamp (--ramp) to BURST/EVERY with a positive
// burst and period, written back as such, and a message for what it
// refuses.
func FuzzParseRamp(f *testing.F) {
	for _, s := range []string{
		"300/30s", "1/1ns", "2/200ms", "10/1m30s", " 3/1s", "3/ 1s",
		"", "3", "/1s", "3/", "0/1s", "-1/1s", "3/0s", "3/-1s", "3/soon", "3/1s/2s", "+3/1s",
		"9223372036854775807/2562047h47m16.854775807s", "9223372036854775808/1s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		burst, every, err := ParseRamp(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseRamp(%q): empty error", s)
			}
			return
		}
		if burst < 1 || every <= 0 {
			t.Fatalf("ParseRamp(%q) = %d, %v", s, burst, every)
		}
		w := strconv.Itoa(burst) + "/" + every.String()
		if b, e, err := ParseRamp(w); err != nil || b != burst || e != every {
			t.Fatalf("ParseRamp(%q) = %d/%v, written %q, reads back as %d/%v, %v", s, burst, every, w, b, e, err)
		}
	})
}
