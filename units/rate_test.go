package units

import "testing"

func TestParseRate(t *testing.T) {
	good := map[string]float64{"100": 100, "100/s": 100, "100/1s": 100, "6000/m": 100, "5/100ms": 50, "0.5": 0.5, "7200/h": 2, "0": 0}
	for in, want := range good {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "100/", "100/q", "100/0s", "100/-1s", "NaN", "Inf", "1/2/3"} {
		if got, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) = %g, want an error", in, got)
		}
	}
}
