package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/units"
)

// WriteViolations writes the SLO's broken limits as a table, one row per
// variant × level × limit; nothing when there are none.
func (r *Experiment) WriteViolations(w io.Writer) error {
	if len(r.Verdict.Violations) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(textsafe.NewWriter(w), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tlevel\tlimit\tmedian\tjudged")
	for _, v := range r.Verdict.Violations {
		judged := v.Judged
		if !math.IsNaN(v.Bound) {
			judged += " " + sloValue(v.Bound, v.Limit)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", textsafe.Escape(v.Variant), v.Level, v.Limit, sloValue(v.Value, v.Limit), judged)
	}
	return tw.Flush()
}

// WriteSLO writes the SLO's verdict as the text report shows it: what
// it was judged on, each variant's knee and the rows that break it;
// nothing without an SLO. latlab run prints it after an experiment.
func (r *Experiment) WriteSLO(w io.Writer) error {
	var b strings.Builder
	r.sloText(&b)
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
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
