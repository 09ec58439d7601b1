package plot

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/units"
)

func TestUnitFormat(t *testing.T) {
	tests := []struct {
		u    Unit
		v    float64
		want string
	}{
		{Plain, 0, "0"},
		{Plain, 12, "12"},
		{Plain, 0.5, "0.5"},
		{Plain, 1500, "1.5k"},
		{Plain, -1500, "-1.5k"},
		{Plain, 2e6, "2M"},
		{Plain, 999999, "1M"},
		{Plain, 123456789, "123M"},
		{Plain, 3e21, "3e+21"},
		{Seconds, 0, "0ns"},
		{Seconds, 850e-9, "850ns"},
		{Seconds, 12e-6, "12µs"},
		{Seconds, 0.0034, "3.4ms"},
		{Seconds, 0.0009996, "1000µs"},
		{Seconds, -0.00025, "-250µs"},
		{Seconds, 1.2, "1.2s"},
		{Seconds, 59.94, "59.9s"},
		{Seconds, 75.4, "1m15s"},
		{Seconds, 3600, "1h0m0s"},
		{Ratio, 0.012, "1.2%"},
		{Ratio, 1, "100%"},
		{PerSecond, 1000, "1000/s"},
		{PerSecond, 1234.56, "1235/s"},
		{PerSecond, 99.97, "100/s"},
		{PerSecond, 12.5, "12.5/s"},
		{Bytes, 512, "512 B"},
		{Bytes, 999, "999 B"},
		{Bytes, 1536, "1.54 kB"},
		{Bytes, 3e6, "3 MB"},
		{Bytes, 3 << 20, "3.15 MB"},
		{Bytes, 5e12, "5000 GB"},
		{Seconds, math.NaN(), "n/a"},
		{Plain, math.Inf(1), "n/a"},
	}
	for _, tt := range tests {
		if got := tt.u.Format(tt.v); got != tt.want {
			t.Errorf("Unit(%d).Format(%g) = %q, want %q", tt.u, tt.v, got, tt.want)
		}
	}
}

func TestSecondsAxisUnit(t *testing.T) {
	tests := []struct {
		max  float64 // largest absolute value on the axis
		want string
	}{
		{0, "ns"},
		{850e-9, "ns"},
		{999e-9, "ns"},
		{1e-6, "µs"},
		{999e-6, "µs"},
		{0.001, "ms"},
		{0.02, "ms"},
		{1, "s"},
		{3600, "s"},
	}
	for _, tt := range tests {
		if got := newTickFormat(Seconds, tt.max).name; got != tt.want {
			t.Errorf("unit for an axis up to %gs = %q, want %q", tt.max, got, tt.want)
		}
	}
}

func TestNiceStep(t *testing.T) {
	tests := []struct{ x, want float64 }{
		{1, 1},
		{1.4, 1},
		{1.6, 2},
		{3.4, 2},
		{3.74, 5},
		{7.4, 5},
		{7.6, 10},
		{0.74, 0.5},
		{0.024, 0.02},
		{3e-9, 2e-9},
		{4.2e12, 5e12},
		{0, 1e-290},
		{math.NaN(), 1e-290},
		{math.Inf(1), 1e305},
	}
	for _, tt := range tests {
		if got := niceStep(tt.x); math.Abs(got-tt.want) > 1e-9*tt.want {
			t.Errorf("niceStep(%g) = %g, want %g", tt.x, got, tt.want)
		}
	}
}

func TestLinearAxis(t *testing.T) {
	ext := func(lo, hi float64) extent { return extent{lo, hi, 2} }
	tests := []struct {
		name   string
		ax     Axis
		e      extent
		d      int
		labels []string
		title  string
		lo, hi float64
		zero   bool
	}{
		{"seconds in ms", Axis{Label: "latency", Unit: Seconds, ZeroBased: true}, ext(0.0021, 0.0187), 5,
			[]string{"0", "5", "10", "15", "20"}, "latency (ms)", 0, 0.02, false},
		{"seconds unit on ticks without a label", Axis{Unit: Seconds}, ext(0.0002, 0.0007), 5,
			[]string{"200µs", "300µs", "400µs", "500µs", "600µs", "700µs"}, "", 0.0002, 0.0007, false},
		{"plain with SI suffixes", Axis{Label: "requests", ZeroBased: true}, ext(10, 2400), 5,
			[]string{"0", "500", "1k", "1.5k", "2k", "2.5k"}, "requests", 0, 2500, false},
		{"ratio in percent", Axis{Label: "error rate", Unit: Ratio, ZeroBased: true}, ext(0.001, 0.012), 5,
			[]string{"0", "0.2", "0.4", "0.6", "0.8", "1", "1.2"}, "error rate (%)", 0, 0.012, false},
		{"rate", Axis{Label: "request rate", Unit: PerSecond}, ext(1000, 9000), 4,
			[]string{"0", "2000", "4000", "6000", "8000", "10000"}, "request rate (/s)", 0, 10000, false},
		{"rate with the unit on ticks without a label", Axis{Unit: PerSecond}, ext(0.5, 2.4), 4,
			[]string{"0.5/s", "1/s", "1.5/s", "2/s", "2.5/s"}, "", 0.5, 2.5, false},
		{"bytes in powers of 1000", Axis{Label: "heap", Unit: Bytes}, ext(1e6, 5e6), 4,
			[]string{"1", "2", "3", "4", "5"}, "heap (MB)", 1e6, 5e6, false},
		{"bytes unit on ticks without a label", Axis{Unit: Bytes}, ext(0, 2500), 5,
			[]string{"0 kB", "0.5 kB", "1 kB", "1.5 kB", "2 kB", "2.5 kB"}, "", 0, 2500, false},
		{"negative includes zero", Axis{Label: "overhead", Unit: Seconds}, ext(-0.00018, -0.00002), 5,
			[]string{"-200", "-150", "-100", "-50", "0"}, "overhead (µs)", -0.0002, 0, false},
		{"both signs draw a zero line", Axis{}, ext(-3, 7), 5,
			[]string{"-4", "-2", "0", "2", "4", "6", "8"}, "", -4, 8, true},
		{"all equal", Axis{}, ext(5, 5), 5,
			[]string{"4.4", "4.6", "4.8", "5", "5.2", "5.4", "5.6"}, "", 4.4, 5.6, false},
		{"all zero", Axis{}, ext(0, 0), 2,
			[]string{"0", "0.5", "1"}, "", 0, 1, false},
		{"no data", Axis{}, extent{}, 2,
			[]string{"0", "0.5", "1"}, "", 0, 1, false},
		{"fixed ends", Axis{Min: new(0.13), Max: new(0.87)}, ext(0, 100), 4,
			[]string{"0.2", "0.4", "0.6", "0.8"}, "", 0.13, 0.87, false},
		{"fixed ends reversed", Axis{Min: new(10.0), Max: new(0.0)}, ext(0, 100), 2,
			[]string{"0", "5", "10"}, "", 0, 10, false},
		{"fixed min above the data", Axis{Min: new(10.0)}, ext(1, 2), 2,
			[]string{"10", "11", "12"}, "", 10, 12, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := resolveLinear(tt.ax, tt.e, tt.d)
			var labels []string
			for _, tk := range a.ticks {
				labels = append(labels, tk.label)
			}
			if diff := cmp.Diff(tt.labels, labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if a.title != tt.title {
				t.Errorf("title = %q, want %q", a.title, tt.title)
			}
			if !approx(a.lo, tt.lo) || !approx(a.hi, tt.hi) {
				t.Errorf("range = %g..%g, want %g..%g", a.lo, a.hi, tt.lo, tt.hi)
			}
			if a.zero != tt.zero {
				t.Errorf("zero line = %v, want %v", a.zero, tt.zero)
			}
		})
	}
}

// approx reports whether a and b agree to 9 digits.
func approx(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b), 1e-300)
}

// unitWord returns what follows the number in a formatted value: "ms" of
// "3.4ms", "kB" of "1.54 kB".
func unitWord(s string) string {
	return strings.TrimSpace(strings.TrimLeft(s, "-−+0123456789."))
}

// TestFormatReadsAsTables holds the charts' value labels to the units the
// report's tables write the same value in.
func TestFormatReadsAsTables(t *testing.T) {
	for d := time.Duration(1); d < 2*time.Hour; d = d*11/10 + 1 {
		got, want := Seconds.Format(d.Seconds()), units.Duration(d)
		if unitWord(got) != unitWord(want) {
			t.Errorf("Seconds.Format(%v) = %q, the tables write %q", d, got, want)
		}
	}
	for n := int64(0); n < 1e12; n = n*11/10 + 1 {
		got, want := Bytes.Format(float64(n)), units.Bytes(n)
		if unitWord(got) != unitWord(want) {
			t.Errorf("Bytes.Format(%d) = %q, the tables write %q", n, got, want)
		}
	}
	for r := 0.01; r < 1e7; r *= 1.1 {
		got, want := PerSecond.Format(r), units.Rate(r)
		if unitWord(got) != unitWord(want) || r >= 100 && got != want {
			t.Errorf("PerSecond.Format(%g) = %q, the tables write %q", r, got, want)
		}
	}
	for p := 0.0001; p < 2; p *= 1.1 {
		if got, want := Ratio.Format(p), units.Percent(p, 2); unitWord(got) != unitWord(want) {
			t.Errorf("Ratio.Format(%g) = %q, the tables write %q", p, got, want)
		}
	}
}
