package spec

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Percentile is a latency at a quantile, such as p99: 50ms: a limit of
// an SLO, or the latency a spec's expect: field expects.
type Percentile struct {
	Name    string        // as written, such as "p99" or "p99.9"
	Q       float64       // the quantile, such as 0.99
	Latency time.Duration // the highest allowed or the expected latency
}

// percentileName matches a percentile's name as specs, --slo and probes
// write it: p50, p99.9, p100.
var percentileName = regexp.MustCompile(`^p([0-9]{1,3}(\.[0-9]{1,6})?)$`)

// ParseQuantile returns the quantile that name, a percentile's name such
// as p99.9, stands for: 0.999, read exactly by moving the decimal point
// rather than dividing by 100. ok is false when name is not p followed by
// up to three digits and up to six decimals. The quantile may be 0 or
// above 1 (p0, p999): the caller judges its range.
func ParseQuantile(name string) (q float64, ok bool) {
	m := percentileName.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	whole, frac, _ := strings.Cut(m[1], ".")
	whole = strings.Repeat("0", 3-len(whole)) + whole
	q, err := strconv.ParseFloat(whole[:1]+"."+whole[1:]+frac, 64)
	return q, err == nil
}

// A Stat is a quantile a table reports, such as p99. Max is quantile 1.
type Stat struct {
	Name string  // "p50", "p99.9", "max"
	Q    float64 // 0.5, 0.999, 1
}

// Stats are the quantiles read from every run, in the order of a report's
// columns.
var Stats = []Stat{{"p50", 0.5}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p99.9", 0.999}, {"max", 1}}

// StatByName returns the Stat called name, and whether there is one.
func StatByName(name string) (Stat, bool) {
	for _, s := range Stats {
		if s.Name == name {
			return s, true
		}
	}
	return Stat{}, false
}

// CompareStats are the quantiles an overhead table compares.
var CompareStats = []string{"p50", "p90", "p99", "p99.9"}
