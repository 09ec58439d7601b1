package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/units"
)

// ParseSLO parses an SLO as --slo takes it: limits separated by commas,
// each a quantile below a duration ("p99<50ms", "p99.9<200ms", "max<1s")
// or the error ratio below a percentage ("errors<1%"). The quantiles are
// those of analysis.Stats. The empty string is the zero SLO.
func ParseSLO(s string) (analysis.SLO, error) {
	var slo analysis.SLO
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
		st, ok := analysis.StatByName(name)
		if !ok {
			return slo, fmt.Errorf("%q: %s is not a reported quantile (want one of %s, or errors)", item, name, statNames())
		}
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 {
			return slo, fmt.Errorf("%q: want a positive duration such as 50ms, got %q", item, val)
		}
		slo.Latency = append(slo.Latency, analysis.Percentile{Name: st.Name, Q: st.Q, Latency: d})
	}
	slices.SortFunc(slo.Latency, func(a, b analysis.Percentile) int { return cmp.Compare(a.Q, b.Q) })
	return slo, nil
}

func statNames() string {
	names := make([]string, len(analysis.Stats))
	for i, s := range analysis.Stats {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// FormatSLO writes slo as ParseSLO reads it: "p99<50ms,errors<1%".
func FormatSLO(slo analysis.SLO) string {
	var parts []string
	for _, l := range slo.Latency {
		parts = append(parts, l.Name+"<"+l.Latency.String())
	}
	if slo.Errors != nil {
		parts = append(parts, "errors<"+strconv.FormatFloat(100**slo.Errors, 'g', -1, 64)+"%")
	}
	return strings.Join(parts, ",")
}

func sloEmpty(slo analysis.SLO) bool { return len(slo.Latency) == 0 && slo.Errors == nil }

// A Violation is one limit of the SLO that a variant breaks at a level.
type Violation struct {
	Variant string
	analysis.Level
	Limit string  // as written: "p99<50ms", "errors<1%"
	Max   float64 // the limit: seconds, or an error ratio
	Value float64 // the median over the counted runs; NaN when n/a
	// Bound is the value judged against Max: Value with Strict, else the
	// lower bound of its 95% CI, or the lowest counted run's value when
	// there are too few runs for a CI; NaN when n/a. Judged says which.
	Bound  float64
	Judged string
}

// violations judges every level against the SLO. By default a limit is
// broken only when the 95% CI of the median lies wholly past it (with
// fewer than 6 runs, when every counted run is past it); with Strict,
// when the median is. A level without counted runs, or a quantile n/a in
// any counted run, breaks it too: a gate must not pass on no data.
func (r *Experiment) violations() []Violation {
	var out []Violation
	for _, l := range r.Levels {
		for _, lim := range r.SLO.Latency {
			var vals []float64
			na := "n/a in every run"
			if i := slices.IndexFunc(l.Latency, func(c analysis.Cell) bool { return c.Q == lim.Q }); i >= 0 {
				vals, na = l.Latency[i].Values, naText(l.Latency[i])
			}
			out = r.judge(out, l, lim.Name+"<"+lim.Latency.String(), lim.Latency.Seconds(), vals, na)
		}
		if e := r.SLO.Errors; e != nil {
			var vals []float64
			for _, id := range l.RunIDs {
				vals = append(vals, r.runs[id].ErrorRatio)
			}
			out = r.judge(out, l, "errors<"+strconv.FormatFloat(100**e, 'g', -1, 64)+"%", *e, vals, "")
		}
	}
	return out
}

// judge judges one limit at l on the counted runs' values vals; na says
// why there are none although runs were counted.
func (r *Experiment) judge(out []Violation, l analysis.LevelResult, limit string, max float64, vals []float64, na string) []Violation {
	v := Violation{Variant: l.Variant, Level: l.Level, Limit: limit, Max: max, Value: math.NaN(), Bound: math.NaN()}
	med, lo, _, ok := analysis.MedianCI(vals)
	switch {
	case len(l.RunIDs) == 0:
		v.Judged = "no runs counted"
	case len(vals) == 0:
		v.Judged = na
	case r.Strict:
		v.Value, v.Bound, v.Judged = med, med, "median"
	case ok:
		v.Value, v.Bound, v.Judged = med, lo, "95% CI lower bound"
	default:
		v.Value, v.Bound, v.Judged = med, slices.Min(vals), fmt.Sprintf("lowest of %d runs", len(vals))
	}
	if math.IsNaN(v.Bound) || v.Bound > max {
		out = append(out, v)
	}
	return out
}

// WriteViolations writes the SLO's broken limits as a table, one row per
// variant × level × limit; nothing when there are none.
func (r *Experiment) WriteViolations(w io.Writer) error {
	if len(r.Violations) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tlevel\tlimit\tmedian\tjudged")
	for _, v := range r.Violations {
		judged := v.Judged
		if !math.IsNaN(v.Bound) {
			judged += " " + sloValue(v.Bound, v.Limit)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.Variant, v.Level, v.Limit, sloValue(v.Value, v.Limit), judged)
	}
	return tw.Flush()
}

// WriteSLO writes the SLO's verdict as the text report shows it: what
// it was judged on, each variant's knee and the rows that break it;
// nothing without an SLO. latlab run prints it after an experiment.
func (r *Experiment) WriteSLO(w io.Writer) error {
	var b strings.Builder
	r.sloText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// sloValue formats a value judged against limit: a duration, or a
// percentage for the error limit.
func sloValue(x float64, limit string) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case strings.HasPrefix(limit, "errors"):
		return units.Percent(x, 2)
	}
	return units.Seconds(x)
}
