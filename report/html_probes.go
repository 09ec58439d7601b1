package report

import (
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// probeSection draws the side measurements of each representative run
// over time as small multiples (see probeCharts), under a table that
// summarises every counted run at the level.
func (r *Experiment) probeSection(d *Detail, reps []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "probes", Title: "Probes at " + d.Level.String(),
		Intro: []string{"Side measurements taken during the runs. The table summarises every counted run at this level; " +
			"the plots draw each variant's representative run against the time since its first probe sample, " +
			"one plot per label set, each on its own scale."}}
	s.Tables = r.probeTables(d)
	groups, notes := r.probeCharts(reps)
	filling := false
	for _, g := range groups {
		hg := htmlPlotGroup{Title: g.title, Intro: g.intro, Code: g.code}
		for _, c := range g.charts {
			filling = filling || strings.Contains(c.Note, windowNote)
			hg.Plots = append(hg.Plots, htmlPlot{SVG: svg(c), Wide: c.Width == probeWideWidth})
		}
		s.Groups = append(s.Groups, hg)
	}
	s.Notes = append(s.Notes, notes...)
	if filling {
		s.Notes = append(s.Notes, fillingNote)
	}
	return s, len(s.Tables)+len(s.Groups) > 0
}

// probeTables summarise the probes of every counted run at the detail
// level, as the text report does for every level.
func (r *Experiment) probeTables(d *Detail) []htmlTable {
	var out []htmlTable
	for _, t := range probeSummaryTables(probeStats(d.levels(r.Levels), d.points())) {
		ht := htmlTable{Caption: t.caption, Head: slices.Delete(slices.Clone(t.head), 1, 2)}
		for _, row := range t.rows {
			cells := []htmlCell{{Text: row[0]}, {Text: row[2]}}
			shown := row
			if t.bounds {
				shown = boundCells(t.head, row)
			}
			for i, x := range shown[3:] {
				c := htmlCell{Text: x, Class: "num"}
				if x != row[3+i] {
					c.Title = bucketBound
				}
				cells = append(cells, c)
			}
			ht.Rows = append(ht.Rows, cells)
		}
		out = append(out, ht)
	}
	return out
}

// bucketBound says what a p100 read from a histogram is.
const bucketBound = "The upper bound of the highest histogram bucket that held an observation: " +
	"the largest value the buckets can vouch for, not a value measured. " +
	"An observation past the last finite bucket shows as that bucket's bound."

// levels returns those of levels at the detail's level.
func (d *Detail) levels(levels []analysis.LevelResult) []analysis.LevelResult {
	var out []analysis.LevelResult
	for _, l := range levels {
		if l.Level == d.Level {
			out = append(out, l)
		}
	}
	return out
}

// points returns the probe points of the detail's runs, by run ID.
func (d *Detail) points() map[int64][]store.ProbePoint {
	out := map[int64][]store.ProbePoint{}
	for _, run := range d.Runs {
		out[run.ID] = run.Probes
	}
	return out
}
