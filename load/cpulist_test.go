package load

import (
	"slices"
	"testing"
)

func TestCPUListRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"0", "0"},
		{"0,1,2,5", "0-2,5"},
		{"2-3", "2-3"},
		{"7,0-1,4", "0-1,4,7"},
		{"1, 1-2", "1-2"},
	} {
		cpus, err := ParseCPUList(tc.in)
		if err != nil {
			t.Fatalf("ParseCPUList(%q): %v", tc.in, err)
		}
		slices.Sort(cpus)
		if got := FormatCPUList(cpus); got != tc.want {
			t.Errorf("FormatCPUList(ParseCPUList(%q)) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(back, cpus) {
			t.Errorf("%q does not read back: %v, %v", FormatCPUList(cpus), back, err)
		}
	}
	if got := FormatCPUList(nil); got != "" {
		t.Errorf("FormatCPUList(nil) = %q", got)
	}
}

func TestAllowedCPUs(t *testing.T) {
	cpus, err := AllowedCPUs()
	if err != nil {
		t.Skip(err)
	}
	if len(cpus) == 0 || !slices.IsSorted(cpus) {
		t.Errorf("AllowedCPUs() = %v, want a sorted non-empty list", cpus)
	}
}
