package report

import (
	"strings"
	"time"

	"github.com/latlab/latlab/report/plot"
	"github.com/latlab/latlab/spec"
)

// windowNote ends the note of a rate plot with points of a window not
// yet full; fillingNote explains them under the plots.
const (
	windowNote  = "window not yet full, the rate reads low"
	fillingNote = "Observations per second: a rate divides the increase in its window by the whole window " +
		"(as PromQL's rate does), so until the scraper has run for a window it reads low, climbing as the window fills " +
		"at a steady load. Those points are drawn thin and dashed."
)

// windowFilling splits a rate line of c in two: the points whose window
// reaches back before the scraper's first sample, drawn thin and dashed,
// and the rest. A rate, as PromQL computes it, divides the increase by
// the whole window, so until the window is full it reads low: a steady
// 100/s climbs from a fraction of it. The series' X is the time since
// the run's first probe sample, about the scraper's first.
func (r *Experiment) windowFilling(c *plot.Chart, ser plot.Series) []plot.Series {
	w := spec.DefaultMetricsWindow.Seconds()
	if r.Exp != nil {
		w = r.Exp.Design.Window().Seconds()
	}
	filling, full := ser, ser
	filling.Points, full.Points = nil, nil
	for _, p := range ser.Points {
		if p.X < w {
			filling.Points = append(filling.Points, p)
		} else {
			full.Points = append(full.Points, p)
		}
	}
	var out []plot.Series
	if len(filling.Points) > 0 {
		if len(full.Points) > 0 {
			filling.Name = "" // the full part names the line in the legend
		}
		filling.Dashed, filling.Width = true, 0.8
		if len(full.Points) > 0 {
			// Led on to the first full point, the line runs unbroken.
			filling.Points = append(filling.Points, full.Points[0])
		}
		out = append(out, filling)
		note := "thin dashed: the " + fmtWindow(w) + " " + windowNote
		if !strings.Contains(c.Note, note) {
			c.Note = strings.TrimPrefix(c.Note+"; "+note, "; ")
		}
	}
	if len(full.Points) > 0 {
		out = append(out, full)
	}
	return out
}

// fmtWindow formats a window of w seconds as a spec would: 1m, not 1m0s.
func fmtWindow(w float64) string {
	d := time.Duration(w * float64(time.Second)).String()
	if strings.HasSuffix(d, "m0s") {
		d = strings.TrimSuffix(d, "0s")
	}
	if strings.HasSuffix(d, "h0m") {
		d = strings.TrimSuffix(d, "0m")
	}
	return d
}
