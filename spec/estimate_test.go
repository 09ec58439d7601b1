package spec

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// estimateFactor is how far latlab run --dry-run's time may be from the
// wall time an example took on the two-core machine examples/README.md
// describes, either way.
const estimateFactor = 1.5

// TestEstimateExamples plans every example spec as latlab run --dry-run
// does, on two CPUs as the examples ran, and checks the time it gives
// against the wall time examples/README.md reports for it: within
// estimateFactor either way.
func TestEstimateExamples(t *testing.T) {
	defer func(f func() int) { estimateCPUs = f }(estimateCPUs)
	estimateCPUs = func() int { return 2 }
	readme, err := os.ReadFile("../examples/README.md")
	if err != nil {
		t.Fatal(err)
	}
	// | [`apf-filter-latency.yaml`](apf-filter-latency.yaml) | study | 78 s |
	row := regexp.MustCompile("(?m)^\\| \\[`([\\w-]+\\.yaml)`\\]\\([^)]*\\) \\|[^|]*\\| ([^|]+) \\|$")
	rows := row.FindAllStringSubmatch(string(readme), -1)
	if len(rows) < 5 {
		t.Fatalf("found %d spec rows with a wall time in examples/README.md, want 5", len(rows))
	}
	for _, r := range rows {
		t.Run(r[1], func(t *testing.T) {
			measured := wallTime(t, r[2])
			path := filepath.Join("../examples", r[1])
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseSpec(path, data, filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			trials := s.Plan(1)
			got := s.Totals(trials).Total(len(trials))
			ratio := float64(got) / float64(measured)
			t.Logf("estimate %s, measured %s (×%.2f)", got, measured, ratio)
			if ratio > estimateFactor || ratio < 1/estimateFactor {
				t.Errorf("estimate %s, measured %s: off by ×%.2f, more than ×%g", got, measured, ratio, estimateFactor)
			}
			if err := s.WritePlan(io.Discard, trials); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// wallTime reads a time as examples/README.md writes it: "78 s", "2 m 53 s",
// or "6 × 6 m 35 s" for a spec whose one round of trials was timed, of the
// rounds it runs.
func wallTime(t *testing.T, s string) time.Duration {
	t.Helper()
	rounds := 1
	if k, rest, ok := strings.Cut(s, " × "); ok {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 {
			t.Fatalf("wall time %q: want such as \"6 × 2 m 53 s\"", s)
		}
		rounds, s = n, rest
	}
	var d time.Duration
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i += 2 {
		n, err := strconv.Atoi(f[i])
		unit := map[string]time.Duration{"m": time.Minute, "s": time.Second}[f[i+1]]
		if err != nil || unit == 0 {
			t.Fatalf("wall time %q: want such as \"2 m 53 s\"", s)
		}
		d += time.Duration(n) * unit
	}
	if d == 0 {
		t.Fatalf("wall time %q: want such as \"2 m 53 s\"", s)
	}
	return time.Duration(rounds) * d
}
