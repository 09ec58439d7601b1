package units

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestUnitFor(t *testing.T) {
	type unitFor func(float64) (string, float64)
	tests := []struct {
		fn       unitFor
		call     string
		v        float64
		wantName string
		wantSize float64
	}{
		{DurationUnit, "DurationUnit", 0, "ns", 1e-9},
		{DurationUnit, "DurationUnit", math.NaN(), "ns", 1e-9},
		{DurationUnit, "DurationUnit", 999e-9, "ns", 1e-9},
		{DurationUnit, "DurationUnit", 1e-6, "µs", 1e-6},
		{DurationUnit, "DurationUnit", 999e-6, "µs", 1e-6},
		{DurationUnit, "DurationUnit", 1e-3, "ms", 1e-3},
		{DurationUnit, "DurationUnit", 1, "s", 1},
		{DurationUnit, "DurationUnit", 3600, "s", 1},

		{BytesUnit, "BytesUnit", 0, "B", 1},
		{BytesUnit, "BytesUnit", 999, "B", 1},
		{BytesUnit, "BytesUnit", 1000, "kB", 1e3},
		{BytesUnit, "BytesUnit", 1536, "kB", 1e3},
		{BytesUnit, "BytesUnit", 2.5e6, "MB", 1e6},
		{BytesUnit, "BytesUnit", 5e12, "GB", 1e9},

		{Prefix, "Prefix", 0, "", 1},
		{Prefix, "Prefix", math.NaN(), "", 1},
		{Prefix, "Prefix", 999, "", 1},
		{Prefix, "Prefix", 1000, "k", 1e3},
		{Prefix, "Prefix", 2e6, "M", 1e6},
		{Prefix, "Prefix", 3e9, "G", 1e9},
		{Prefix, "Prefix", 4.2e12, "T", 1e12},
		{Prefix, "Prefix", 5e15, "P", 1e15},
		{Prefix, "Prefix", 9e20, "E", 1e18},
		{Prefix, "Prefix", 1e21, "", 1},
	}
	for _, tt := range tests {
		if name, size := tt.fn(tt.v); name != tt.wantName || size != tt.wantSize {
			t.Errorf("%s(%g) = %q, %g; want %q, %g", tt.call, tt.v, name, size, tt.wantName, tt.wantSize)
		}
	}
}

// TestDurationInItsUnit holds Duration to the unit DurationUnit names for
// every magnitude under a minute, so a chart's axis and a table agree.
func TestDurationInItsUnit(t *testing.T) {
	for d := time.Duration(1); d < time.Minute; d = d*11/10 + 1 {
		name, _ := DurationUnit(d.Seconds())
		s := Duration(d)
		if _, err := strconv.ParseFloat(strings.TrimSuffix(s, name), 64); err != nil {
			t.Errorf("Duration(%d) = %q, not a number of %s", int64(d), s, name)
		}
	}
}

// TestBytesInItsUnit does the same for Bytes and BytesUnit.
func TestBytesInItsUnit(t *testing.T) {
	for n := int64(0); n < 1e13; n = n*11/10 + 1 {
		name, _ := BytesUnit(float64(n))
		s := Bytes(n)
		if _, err := strconv.ParseFloat(strings.TrimSuffix(s, " "+name), 64); err != nil {
			t.Errorf("Bytes(%d) = %q, not a number of %s", n, s, name)
		}
	}
}
