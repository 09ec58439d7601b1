package units

import (
	"math"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0ns"},
		{850, "850ns"},
		{-850, "-850ns"},
		{time.Microsecond, "1.0µs"},
		{11300, "11.3µs"},
		{99949, "99.9µs"},
		{100 * time.Microsecond, "100µs"},
		{236400, "236µs"},
		{time.Millisecond, "1.000ms"},
		{2415 * time.Microsecond, "2.415ms"},
		{10830 * time.Microsecond, "10.83ms"},
		{24150 * time.Microsecond, "24.15ms"},
		{241500 * time.Microsecond, "241.5ms"},
		{123456 * time.Microsecond, "123.5ms"},
		{1203 * time.Millisecond, "1.203s"},
		{-1203 * time.Millisecond, "-1.203s"},
		{90 * time.Second, "1m30s"},
		{123400 * time.Millisecond, "2m3s"},
		{2 * time.Hour, "2h0m0s"},
	}
	for _, tt := range tests {
		if got := Duration(tt.d); got != tt.want {
			t.Errorf("Duration(%d) = %q, want %q", int64(tt.d), got, tt.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		s          float64
		want, sign string
	}{
		{0, "0ns", "0ns"},
		{4.2e-9, "4ns", "+4ns"},
		{4.5e-9, "5ns", "+5ns"}, // rounded, not truncated
		{0.0000523, "52.3µs", "+52.3µs"},
		{-0.0000523, "-52.3µs", "−52.3µs"},
		{0.002415, "2.415ms", "+2.415ms"},
		{-1.2034, "-1.203s", "−1.203s"},
		{math.NaN(), "n/a", "n/a"},
		{math.Inf(1), "n/a", "n/a"},
		{1e300, "2562047h47m16.854775807s", "+2562047h47m16.854775807s"}, // past a Duration: the longest
	}
	for _, tt := range tests {
		if got := Seconds(tt.s); got != tt.want {
			t.Errorf("Seconds(%g) = %q, want %q", tt.s, got, tt.want)
		}
		if got := Signed(tt.s); got != tt.sign {
			t.Errorf("Signed(%g) = %q, want %q", tt.s, got, tt.sign)
		}
	}
}

func TestRate(t *testing.T) {
	tests := []struct {
		r           float64
		want, exact string
	}{
		{0, "0.00/s", "0/s"},
		{2.5, "2.50/s", "2.5/s"},
		{99.99, "99.99/s", "99.99/s"},
		{99.99998, "100/s", "99.99998/s"},
		{100, "100/s", "100/s"},
		{100.4, "100/s", "100.4/s"},
		{12.345, "12.35/s", "12.345/s"},
		{1234.56, "1235/s", "1234.56/s"},
		{1e6, "1000000/s", "1e+06/s"},
		{math.NaN(), "n/a", "NaN/s"},
	}
	for _, tt := range tests {
		if got := Rate(tt.r); got != tt.want {
			t.Errorf("Rate(%g) = %q, want %q", tt.r, got, tt.want)
		}
		if got := ExactRate(tt.r); got != tt.exact {
			t.Errorf("ExactRate(%g) = %q, want %q", tt.r, got, tt.exact)
		}
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{999, "999 B"},
		{1000, "1.0 kB"},
		{1536, "1.5 kB"},
		{2_500_000, "2.5 MB"},
		{3_210_000_000, "3.21 GB"},
	}
	for _, tt := range tests {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestPercent(t *testing.T) {
	tests := []struct {
		ratio float64
		prec  int
		want  string
	}{
		{0, 1, "0.0%"},
		{0.0123, 2, "1.23%"},
		{0.25, 0, "25%"},
		{1.5, 1, "150.0%"},
		{math.NaN(), 1, "n/a"},
	}
	for _, tt := range tests {
		if got := Percent(tt.ratio, tt.prec); got != tt.want {
			t.Errorf("Percent(%g, %d) = %q, want %q", tt.ratio, tt.prec, got, tt.want)
		}
	}
}
