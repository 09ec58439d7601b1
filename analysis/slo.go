package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/spec"
)

// ParseSLO parses an SLO as --slo takes it: limits separated by commas,
// each a quantile below a duration ("p99<50ms", "p99.9<200ms", "max<1s")
// or the error ratio below a percentage ("errors<1%"). The quantiles are
// those of Stats. The empty string is the zero SLO.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	if strings.TrimSpace(s) == "" {
		return slo, nil
	}
	seen := map[string]bool{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		name, val, ok := strings.Cut(item, "<")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" || val == "" {
			return slo, fmt.Errorf("%q: want NAME<LIMIT, such as p99<50ms or errors<1%%", item)
		}
		if seen[name] {
			return slo, fmt.Errorf("%q: %s is limited twice", item, name)
		}
		seen[name] = true
		if name == "errors" {
			num, ok := strings.CutSuffix(val, "%")
			pct, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if !ok || err != nil || !(pct >= 0 && pct <= 100) {
				return slo, fmt.Errorf("%q: want a percentage from 0%% to 100%%, such as errors<1%%", item)
			}
			ratio := pct / 100
			slo.Errors = &ratio
			continue
		}
		st, ok := spec.StatByName(name)
		if !ok {
			return slo, fmt.Errorf("%q: %s is not a reported quantile (want one of %s, or errors)", item, name, statNames())
		}
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 {
			return slo, fmt.Errorf("%q: want a positive duration such as 50ms, got %q", item, val)
		}
		slo.Latency = append(slo.Latency, spec.Percentile{Name: st.Name, Q: st.Q, Latency: d})
	}
	slices.SortFunc(slo.Latency, func(a, b spec.Percentile) int { return cmp.Compare(a.Q, b.Q) })
	return slo, nil
}

// statNames lists the names of Stats: "p50, p90, …, max".
func statNames() string {
	names := make([]string, len(spec.Stats))
	for i, s := range spec.Stats {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// String writes slo as ParseSLO reads it: "p99<50ms,errors<1%".
func (slo SLO) String() string {
	var parts []string
	for _, l := range slo.Latency {
		parts = append(parts, limit(l))
	}
	if slo.Errors != nil {
		parts = append(parts, errorsLimit(*slo.Errors))
	}
	return strings.Join(parts, ",")
}

// IsZero reports whether slo asks for nothing.
func (slo SLO) IsZero() bool { return len(slo.Latency) == 0 && slo.Errors == nil }

// limit writes p as a limit of an SLO: "p99<50ms".
func limit(p spec.Percentile) string { return p.Name + "<" + p.Latency.String() }

// errorsLimit writes an error ratio as a limit of an SLO: "errors<1%".
func errorsLimit(max float64) string {
	return "errors<" + strconv.FormatFloat(100*max, 'g', -1, 64) + "%"
}
