package units

import (
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		call, got, want string
	}{
		{"Duration(0)", Duration(0), "0ns"},
		{"Duration(850ns)", Duration(850), "850ns"},
		{"Duration(-850ns)", Duration(-850), "-850ns"},
		{"Duration(1µs)", Duration(time.Microsecond), "1.0µs"},
		{"Duration(11.3µs)", Duration(11300), "11.3µs"},
		{"Duration(99.949µs)", Duration(99949), "99.9µs"},
		{"Duration(100µs)", Duration(100 * time.Microsecond), "100µs"},
		{"Duration(236.4µs)", Duration(236400), "236µs"},
		{"Duration(1ms)", Duration(time.Millisecond), "1.000ms"},
		{"Duration(2.415ms)", Duration(2415 * time.Microsecond), "2.415ms"},
		{"Duration(10.83ms)", Duration(10830 * time.Microsecond), "10.83ms"},
		{"Duration(24.15ms)", Duration(24150 * time.Microsecond), "24.15ms"},
		{"Duration(241.5ms)", Duration(241500 * time.Microsecond), "241.5ms"},
		{"Duration(1.203s)", Duration(1203 * time.Millisecond), "1.203s"},
		{"Duration(-1.203s)", Duration(-1203 * time.Millisecond), "-1.203s"},
		{"Duration(90s)", Duration(90 * time.Second), "1m30s"},
		{"Duration(123.4s)", Duration(123400 * time.Millisecond), "2m3s"},
		{"Duration(2h)", Duration(2 * time.Hour), "2h0m0s"},

		{"Seconds(0)", Seconds(0), "0ns"},
		{"Seconds(4.2e-9)", Seconds(4.2e-9), "4ns"},
		{"Seconds(4.5e-9)", Seconds(4.5e-9), "5ns"}, // rounded, not truncated
		{"Seconds(52.3µs)", Seconds(0.0000523), "52.3µs"},
		{"Seconds(-52.3µs)", Seconds(-0.0000523), "-52.3µs"},
		{"Seconds(2.415ms)", Seconds(0.002415), "2.415ms"},
		{"Seconds(NaN)", Seconds(nan), "n/a"},
		{"Seconds(+Inf)", Seconds(math.Inf(1)), "n/a"},
		{"Seconds(1e300)", Seconds(1e300), "2562047h47m16.854775807s"}, // past a Duration: the longest
		{"Seconds(-1e300)", Seconds(-1e300), "-2562047h47m16.854775808s"},

		{"Signed(0)", Signed(0), "0ns"},
		{"Signed(4.2e-9)", Signed(4.2e-9), "+4ns"},
		{"Signed(52.3µs)", Signed(0.0000523), "+52.3µs"},
		{"Signed(-52.3µs)", Signed(-0.0000523), "−52.3µs"},
		{"Signed(-1.2034s)", Signed(-1.2034), "−1.203s"},
		{"Signed(NaN)", Signed(nan), "n/a"},
		{"Signed(-Inf)", Signed(math.Inf(-1)), "n/a"},

		{"Rate(0)", Rate(0), "0.00/s"},
		{"Rate(2.5)", Rate(2.5), "2.50/s"},
		{"Rate(12.345)", Rate(12.345), "12.35/s"},
		{"Rate(99.99)", Rate(99.99), "99.99/s"},
		{"Rate(99.99998)", Rate(99.99998), "100/s"},
		{"Rate(100.4)", Rate(100.4), "100/s"},
		{"Rate(1234.56)", Rate(1234.56), "1235/s"},
		{"Rate(1e6)", Rate(1e6), "1000000/s"},
		{"Rate(NaN)", Rate(nan), "n/a"},

		{"ExactRate(0)", ExactRate(0), "0/s"},
		{"ExactRate(2.5)", ExactRate(2.5), "2.5/s"},
		{"ExactRate(99.99998)", ExactRate(99.99998), "99.99998/s"},
		{"ExactRate(1234.56)", ExactRate(1234.56), "1234.56/s"},
		{"ExactRate(1e6)", ExactRate(1e6), "1e+06/s"},

		{"Bytes(0)", Bytes(0), "0 B"},
		{"Bytes(999)", Bytes(999), "999 B"},
		{"Bytes(1000)", Bytes(1000), "1.0 kB"},
		{"Bytes(1536)", Bytes(1536), "1.5 kB"},
		{"Bytes(2.5e6)", Bytes(2_500_000), "2.5 MB"},
		{"Bytes(3.21e9)", Bytes(3_210_000_000), "3.21 GB"},

		{"Percent(0, 1)", Percent(0, 1), "0.0%"},
		{"Percent(0.0123, 2)", Percent(0.0123, 2), "1.23%"},
		{"Percent(0.25, 0)", Percent(0.25, 0), "25%"},
		{"Percent(1.5, 1)", Percent(1.5, 1), "150.0%"},
		{"Percent(NaN, 1)", Percent(nan, 1), "n/a"},
		{"SignedPercent(-0.525, 1)", SignedPercent(-0.525, 1), "−52.5%"},
		{"SignedPercent(0.031, 1)", SignedPercent(0.031, 1), "+3.1%"},
		{"SignedPercent(-0.0001, 1)", SignedPercent(-0.0001, 1), "0.0%"},
		{"SignedPercent(NaN, 1)", SignedPercent(nan, 1), "n/a"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.call, tt.got, tt.want)
		}
	}
}

// TestLeaf holds units to the standard library: every package may import
// it, so it imports none of them.
func TestLeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && !strings.HasSuffix(f, "_test.go") {
				t.Errorf("%s imports %s, not of the standard library", f, p)
			}
		}
	}
}

func TestCountAndRound(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Count(1, "trial"), "1 trial"},
		{Count(0, "trial"), "0 trials"},
		{Count(3, "trial"), "3 trials"},
		{Count(2, "repetition of it", "repetitions of it"), "2 repetitions of it"},
		{Count(1, "repetition of it", "repetitions of it"), "1 repetition of it"},
	} {
		if tc.got != tc.want {
			t.Errorf("Count: %q, want %q", tc.got, tc.want)
		}
	}
	for _, tc := range []struct{ d, want time.Duration }{
		{1499 * time.Microsecond, time.Millisecond},
		{999400 * time.Microsecond, 999 * time.Millisecond},
		{1500 * time.Millisecond, 2 * time.Second},
		{90*time.Second + 400*time.Millisecond, 90 * time.Second},
	} {
		if got := Round(tc.d); got != tc.want {
			t.Errorf("Round(%s) = %s, want %s", tc.d, got, tc.want)
		}
	}
}
