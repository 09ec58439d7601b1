package report

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes the summary table as CSV, one row per variant × level ×
// quantile of latency from the intended send, under the header
//
//	variant,rate,concurrency,percentile,median_seconds,lo_seconds,hi_seconds,runs,excluded,na_runs,runs_planned
//
// rate is requests/s (0 in closed loop); a value that does not exist (a
// CI from fewer than 6 runs, a quantile n/a in any counted run) is empty;
// na_runs counts the runs counted where the quantile is n/a; runs_planned
// is how many runs the plan holds, so that runs below it show runs lost,
// unreadable or not run yet (the text and JSON forms say which).
func (r *Experiment) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"variant", "rate", "concurrency", "percentile", "median_seconds", "lo_seconds", "hi_seconds", "runs", "excluded", "na_runs", "runs_planned"})
	for _, l := range r.Levels {
		for _, c := range l.Latency {
			med, lo, hi := "", "", ""
			if len(c.Values) > 0 {
				med = csvFloat(c.Median)
			}
			if c.CIOK {
				lo, hi = csvFloat(c.Lo), csvFloat(c.Hi)
			}
			_ = cw.Write([]string{l.Variant, csvFloat(l.Rate), strconv.Itoa(l.Concurrency), c.Name, med, lo, hi,
				strconv.Itoa(len(l.RunIDs)), strconv.Itoa(l.Excluded), strconv.Itoa(c.NA), strconv.Itoa(l.Planned)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteOverheadCSV writes the overhead table as CSV (latlab report
// --table overhead), one row per variant × level × quantile compared,
// under the header
//
//	variant,baseline,rate,concurrency,percentile,runs,baseline_runs,baseline_seconds,diff_seconds,diff_lo_seconds,diff_hi_seconds,relative,p,p_holm,significant,reason,ci_level,ci_lo_seconds,ci_hi_seconds
//
// with empty cells where OverheadJSON has null; reason is OverheadJSON's;
// diff_lo and diff_hi bound the plain 95% interval, ci_lo and ci_hi the
// one at ci_level, Holm's for the row, which excludes 0 exactly when
// significant is true.
func (r *Experiment) WriteOverheadCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"variant", "baseline", "rate", "concurrency", "percentile", "runs", "baseline_runs",
		"baseline_seconds", "diff_seconds", "diff_lo_seconds", "diff_hi_seconds", "relative", "p", "p_holm", "significant", "reason",
		"ci_level", "ci_lo_seconds", "ci_hi_seconds"})
	for _, o := range r.JSON().Overheads {
		_ = cw.Write([]string{o.Variant, o.Baseline, csvFloat(o.Rate), strconv.Itoa(o.Concurrency), o.Percentile,
			strconv.Itoa(o.Runs), strconv.Itoa(o.BaselineRuns), csvPtr(o.BaselineSeconds), csvPtr(o.DiffSeconds),
			csvPtr(o.DiffLoSeconds), csvPtr(o.DiffHiSeconds), csvPtr(o.Relative), csvPtr(o.P), csvPtr(o.PHolm),
			strconv.FormatBool(o.Significant), strPtr(o.Reason), csvPtr(o.CILevel), csvPtr(o.CILoSeconds), csvPtr(o.CIHiSeconds)})
	}
	cw.Flush()
	return cw.Error()
}

func csvFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func strPtr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func csvPtr(x *float64) string {
	if x == nil {
		return ""
	}
	return csvFloat(*x)
}
