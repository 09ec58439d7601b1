package load

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseCPUList holds ParseCPUList to CPU lists as taskset and cpusets
// write them: what it accepts is CPUs 0 to 1023, each once, that
// FormatCPUList writes back as a list it reads the same; what it refuses
// gets a message.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{
		"0", "0,2-3", "0-3,8-11", "7,0-1,4", "1, 1-2", " 3 ", "0-1023", "1023",
		"", ",", "0,", "-1", "1-", "-", "3-1", "1024", "0-1024", "a", "0x1",
		"+1", "1--2", "1-2-3", "00,01", "9223372036854775807", "0-9223372036854775807",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseCPUList(%q): empty error", s)
			}
			return
		}
		if len(cpus) == 0 {
			t.Fatalf("ParseCPUList(%q): no CPUs and no error", s)
		}
		seen := map[int]bool{}
		for _, c := range cpus {
			if c < 0 || c >= 1024 || seen[c] {
				t.Fatalf("ParseCPUList(%q) = %v: CPU %d out of range or repeated", s, cpus, c)
			}
			seen[c] = true
		}
		back, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(back, cpus) {
			t.Fatalf("ParseCPUList(%q) = %v, written %q, reads back as %v, %v", s, cpus, FormatCPUList(cpus), back, err)
		}
		sorted := slices.Sorted(slices.Values(cpus))
		if w := FormatCPUList(sorted); strings.Count(w, ",")+1 > len(sorted) {
			t.Fatalf("FormatCPUList(%v) = %q: more parts than CPUs", sorted, w)
		}
	})
}
