package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report/plot"
	"github.com/latlab/latlab/units"
)

// detailSections draw one level in depth: distributions, each variant's
// representative run over time and against request number, the trend of
// every run, probes, hops and profiles.
func (r *Experiment) detailSections(d *Detail) []htmlSection {
	var out []htmlSection
	if s, ok := r.distributionSection(d); ok {
		out = append(out, s)
	}
	reps := r.representatives(d)
	if len(reps) > 0 {
		out = append(out, r.timeSection(d, reps))
	}
	if s, ok := r.trendSection(d, reps); ok {
		out = append(out, s)
	}
	if s, ok := r.probeSection(d, reps); ok {
		out = append(out, s)
	}
	if s, ok := r.hopSection(d, reps); ok {
		out = append(out, s)
	}
	if s, ok := r.shardSection(d, reps); ok {
		out = append(out, s)
	}
	if s, ok := r.profileSection(d, reps); ok {
		out = append(out, s)
	}
	return out
}

// distributionSection overlays the variants' merged latency distributions
// at the detail level: a CDF on a percentile axis and a histogram.
func (r *Experiment) distributionSection(d *Detail) (htmlSection, bool) {
	s := htmlSection{ID: "distribution", Title: "Latency distribution at " + d.Level.String()}
	cdf := &plot.Chart{ID: "cdf", Title: "Latency by percentile at " + d.Level.String(),
		X: plot.Axis{Label: "percentile", Scale: plot.Percentile}, Y: plot.Axis{Label: "latency", Unit: plot.Seconds, ZeroBased: true},
		Note: "the counted runs' histograms merged; each line ends at the last percentile its samples can give"}
	pdf := &plot.Chart{ID: "pdf", Title: "Latency histogram at " + d.Level.String(),
		X: plot.Axis{Label: "latency", Unit: plot.Seconds}, Y: plot.Axis{Label: "share of requests", Unit: plot.Ratio, ZeroBased: true}}
	found := false
	for _, dist := range d.Distributions {
		if dist.Level != d.Level || dist.Count == 0 {
			continue
		}
		found = true
		i := slices.Index(r.variants, dist.Variant)
		name := fmt.Sprintf("%s: %d runs, %d requests", dist.Variant, dist.Runs, dist.Count)
		cdf.Series = append(cdf.Series, plot.Series{Name: name, Points: toPlot(dist.Quantiles), Color: i})
		h := plot.Series{Name: dist.Variant, Style: plot.Steps, Color: i}
		for _, b := range dist.PDF {
			h.Points = append(h.Points, plot.Point{X: b.Lo, Y: b.Share})
		}
		if n := len(dist.PDF); n > 0 {
			h.Points = append(h.Points, plot.Point{X: dist.PDF[n-1].Hi, Y: dist.PDF[n-1].Share})
		}
		if dist.PDFLog {
			pdf.X.Scale = plot.Log
		}
		pdf.Series = append(pdf.Series, h)
	}
	if !found {
		return s, false
	}
	if pdf.X.Scale == plot.Log {
		pdf.Note = "bins of equal width on the log axis"
	}
	s.Plots = append(s.Plots, svg(cdf), svg(pdf))
	return s, true
}

// representatives picks, for each variant at the detail level, the run
// drawn over time (analysis.Representative).
func (r *Experiment) representatives(d *Detail) []*analysis.RunDetail {
	return r.representativesAt(d.Runs, d.Level)
}

// representativesAt picks, for each variant at level, its representative
// run among runs (analysis.Representative).
func (r *Experiment) representativesAt(runs []analysis.RunDetail, level analysis.Level) []*analysis.RunDetail {
	var out []*analysis.RunDetail
	for _, v := range r.variants {
		var ids []int64
		for _, l := range r.Levels {
			if l.Variant == v && l.Level == level {
				ids = l.RunIDs
			}
		}
		if run := analysis.Representative(runs, v, level, ids); run != nil {
			out = append(out, run)
		}
	}
	return out
}

// timeSection draws each representative run over time: latency
// percentiles per interval with warm-up shaded, throughput and requests in
// flight beneath.
func (r *Experiment) timeSection(d *Detail, reps []*analysis.RunDetail) htmlSection {
	s := htmlSection{ID: "time", Title: "Over time at " + d.Level.String(),
		Intro: []string{"One run per variant, the one with the median p50 among the counted runs; " +
			"latency per interval from each request's intended send, warm-up shaded (it is never counted)."}}
	for _, run := range reps {
		tx := plot.Axis{Label: "time since the measurement began", Unit: plot.Seconds}
		if n := len(run.Intervals); n > 0 {
			lo, hi := min(0, run.Intervals[0].Start.Seconds()), run.Intervals[n-1].End.Seconds()
			tx.Min, tx.Max = &lo, &hi
		}
		i := slices.Index(r.variants, run.Variant)
		// A row of three plots of one size per run, under its heading:
		// plots of different heights in one grid leave gaps.
		lat := &plot.Chart{ID: fmt.Sprintf("time-latency-%d", run.ID), Title: "latency per interval", X: tx,
			Y: plot.Axis{Label: "latency", Unit: plot.Seconds, ZeroBased: true}, Width: probePlotWidth, Height: probePlotHeight}
		thr := &plot.Chart{ID: fmt.Sprintf("time-throughput-%d", run.ID), Title: "throughput and errors", X: tx,
			Y: plot.Axis{Label: "completed", Unit: plot.PerSecond, ZeroBased: true}, Width: probePlotWidth, Height: probePlotHeight}
		inf := &plot.Chart{ID: fmt.Sprintf("time-inflight-%d", run.ID), Title: "requests in flight", X: tx,
			Y: plot.Axis{Label: "in flight", Unit: plot.Plain, ZeroBased: true}, Width: probePlotWidth, Height: probePlotHeight}
		line := func(name string, color int, dashed bool) *plot.Series {
			return &plot.Series{Name: name, Style: plot.Line, Color: color, Dashed: dashed}
		}
		p50, p90, p99, pmax := line("p50", 0, false), line("p90", 1, false), line("p99", 3, false), line("max", 7, true)
		done, failed := line("completed/s", i, false), line("failed/s", 3, true)
		mean, most := line("mean", i, false), line("max", i, true)
		var warm *plot.Span
		for _, in := range run.Intervals {
			mid := ((in.Start + in.End) / 2).Seconds()
			if in.Warmup {
				if warm == nil {
					warm = &plot.Span{From: in.Start.Seconds(), Label: "warm-up"}
				}
				warm.To = in.End.Seconds()
			}
			p50.Points = append(p50.Points, plot.Point{X: mid, Y: in.P50})
			p90.Points = append(p90.Points, plot.Point{X: mid, Y: in.P90})
			p99.Points = append(p99.Points, plot.Point{X: mid, Y: in.P99})
			pmax.Points = append(pmax.Points, plot.Point{X: mid, Y: in.Max})
			if in.Short {
				continue // a rate over a few milliseconds means nothing
			}
			done.Points = append(done.Points, plot.Point{X: mid, Y: in.Throughput})
			failed.Points = append(failed.Points, plot.Point{X: mid, Y: in.Failed})
			mean.Points = append(mean.Points, plot.Point{X: mid, Y: in.InFlightMean})
			most.Points = append(most.Points, plot.Point{X: mid, Y: float64(in.InFlightMax)})
		}
		lat.Series = []plot.Series{*p50, *p90, *p99, *pmax}
		thr.Series = []plot.Series{*done, *failed}
		inf.Series = []plot.Series{*mean, *most}
		if warm != nil {
			for _, c := range []*plot.Chart{lat, thr, inf} {
				c.Shade = []plot.Span{*warm}
			}
		}
		lat.Rules = r.sloRules()
		s.Groups = append(s.Groups, htmlPlotGroup{Title: fmt.Sprintf("%s, run %d (rep %d)", run.Variant, run.ID, run.Rep),
			Plots: []htmlPlot{{SVG: svg(lat)}, {SVG: svg(thr)}, {SVG: svg(inf)}}})
	}
	return s
}

// trendSection tabulates the trends of every run with raw samples, per
// variant and level, the target's service time apart from the generator's
// lag, and draws each representative run's service time against request
// number with its fitted line, then its lag the same way.
func (r *Experiment) trendSection(d *Detail, reps []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "trend", Title: "Trend: service time against request number",
		Intro: []string{"Each run's requests after warm-up, less the first 10%, cut into 30 groups in order; " +
			"the slope is fitted to the groups' median service time (completion − first byte sent: what the target took), " +
			"by least squares with a 95% CI from Student's t. " +
			"A run drifts when the CI excludes zero and the fitted rise exceeds 10% of its median (validity.max_trend) " +
			fmt.Sprintf("and %g times the run's wander, how far the group medians stray about the line beyond their own sampling; ", analysis.TrendClear) +
			"such a run is flagged trend and averaging it with its siblings hides a target falling behind. " +
			"A smaller rise is no more than a fast target's service time strays over any run on a shared machine.",
			"The generator's lag (first byte sent − intended send) is fitted the same way and shown apart. " +
				"A generator that stalls raises latency, not service time, and its lag's trend flags nothing: " +
				"generator_saturated judges the generator by its lag p99 and the requests it left unsent."}}
	sums := analysis.SummarizeTrends(d.Runs, r.variants, analysis.ServiceTime)
	if len(sums) == 0 {
		return s, false
	}
	t := htmlTable{Caption: "Target: service time",
		Head: []string{"variant", "level", "runs fitted", "rising", "falling", "median slope / 1k requests", "median rise over a run"}}
	for _, sum := range sums {
		rc := htmlCell{Text: fmt.Sprint(sum.Rising), Class: "num"}
		if sum.Rising > 0 {
			rc.Class = "num bad"
		}
		t.Rows = append(t.Rows, []htmlCell{{Text: sum.Variant}, {Text: sum.Level.String(), Class: "num"}, {Text: fmt.Sprint(sum.Runs), Class: "num"},
			rc, {Text: fmt.Sprint(sum.Falling), Class: "num"}, {Text: units.Signed(sum.Slope * 1000), Class: "num"},
			{Text: riseShare(sum.Rise), Class: "num"}})
	}
	s.Tables = append(s.Tables, t)
	// A lag's rise is told in seconds: a share of a median lag of a few
	// microseconds, or of none, says nothing.
	lt := htmlTable{Caption: "Generator: lag (shown, never flagged)",
		Head: []string{"variant", "level", "runs fitted", "rising (CI above 0)", "falling", "median slope / 1k requests", "median rise over a run"}}
	for _, sum := range analysis.SummarizeTrends(d.Runs, r.variants, analysis.Lag) {
		lt.Rows = append(lt.Rows, []htmlCell{{Text: sum.Variant}, {Text: sum.Level.String(), Class: "num"}, {Text: fmt.Sprint(sum.Runs), Class: "num"},
			{Text: fmt.Sprint(sum.Up), Class: "num"}, {Text: fmt.Sprint(sum.Falling), Class: "num"}, {Text: units.Signed(sum.Slope * 1000), Class: "num"},
			{Text: units.Signed(sum.RiseSeconds), Class: "num"}})
	}
	if len(lt.Rows) > 0 {
		s.Tables = append(s.Tables, lt)
	}
	lags := htmlPlotGroup{Title: "Generator lag against request number",
		Intro: "The lag of the same runs' requests: how late the generator sent them, apart from what the target took."}
	for _, run := range reps {
		if !run.TrendOK && len(run.Samples) == 0 {
			continue
		}
		s.Plots = append(s.Plots, svg(r.trendChart(run, analysis.ServiceTime)))
		lags.Plots = append(lags.Plots, htmlPlot{SVG: svg(r.trendChart(run, analysis.Lag))})
	}
	if len(lags.Plots) > 0 {
		s.Groups = append(s.Groups, lags)
	}
	return s, true
}

// trendChart draws a run's thinned samples of quantity q (service time or
// lag), its group medians and the fitted line.
func (r *Experiment) trendChart(run *analysis.RunDetail, q analysis.TrendQuantity) *plot.Chart {
	i := slices.Index(r.variants, run.Variant)
	id, name, samples := fmt.Sprintf("trend-%d", run.ID), "service time", run.Samples
	if q == analysis.Lag {
		id, name, samples = fmt.Sprintf("lag-trend-%d", run.ID), "generator lag", run.LagSamples
	}
	c := &plot.Chart{ID: id, Title: fmt.Sprintf("%s, run %d: %s against request number", run.Variant, run.ID, name),
		X: plot.Axis{Label: "request number", Unit: plot.Plain}, Y: plot.Axis{Label: name, Unit: plot.Seconds, ZeroBased: true}}
	c.Series = append(c.Series, plot.Series{Name: "requests (thinned)", Points: toPlot(samples), Style: plot.Markers, Color: i, Width: 0.6})
	if tr, ok := run.TrendOf(q); ok {
		c.Series = append(c.Series, plot.Series{Name: "group medians", Points: toPlot(tr.Groups), Style: plot.LineMarkers, Color: 7})
		x0, x1 := float64(tr.From), float64(tr.From+tr.N)
		c.Series = append(c.Series, plot.Series{Name: "fit", Style: plot.Line, Color: 3, Dashed: true, Width: 2,
			Points: []plot.Point{{X: x0, Y: tr.Intercept + tr.Slope*x0}, {X: x1, Y: tr.Intercept + tr.Slope*x1}}})
		rise := fmt.Sprintf("rise %+.1f%% of the median %s", 100*tr.Rise/tr.Median, units.Seconds(tr.Median))
		if q == analysis.Lag {
			rise = fmt.Sprintf("rise %s over the run, median %s", units.Signed(tr.Rise), units.Seconds(tr.Median))
		}
		c.Note = fmt.Sprintf("slope %s per 1k requests (95%% CI %s to %s), %s",
			units.Signed(tr.Slope*1000), units.Signed(tr.Lo*1000), units.Signed(tr.Hi*1000), rise)
		// The tail would squash the medians into a line along the axis; a
		// lag of nothing throughout leaves the scale to the samples.
		if hi := 4 * slices.MaxFunc(tr.Groups, func(a, b analysis.Point) int { return cmp.Compare(a.Y, b.Y) }).Y; hi > 0 {
			c.Y.Max = &hi
		}
	}
	return c
}

// riseShare writes a rise as a share of the median, n/a for NaN.
func riseShare(share float64) string {
	if math.IsNaN(share) {
		return units.NA
	}
	return fmt.Sprintf("%+.1f%% of the median", 100*share)
}

// toPlot converts analysis points to plot points.
func toPlot(ps []analysis.Point) []plot.Point {
	out := make([]plot.Point, len(ps))
	for i, p := range ps {
		out[i] = plot.Point{X: p.X, Y: p.Y}
	}
	return out
}
