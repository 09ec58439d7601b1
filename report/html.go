package report

import (
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

var htmlPage = template.Must(template.New("report").Parse(htmlTemplate))

// HTMLOptions choose what the HTML report draws in detail. The zero value
// picks the level itself.
type HTMLOptions struct {
	// Level is the level whose distributions, runs over time and probes
	// are drawn; nil picks the highest level every variant ran at, the one
	// under most stress.
	Level *analysis.Level
	// SamplePoints caps the raw samples drawn per run against request
	// number; 0 means 2,000.
	SamplePoints int
}

// Detail is what the HTML report reads beyond the aggregates: every run's
// series and trend, and the merged latency distributions of each variant
// at each level.
type Detail struct {
	Level         analysis.Level // the level drawn in detail
	Runs          []analysis.RunDetail
	Distributions []analysis.Distribution
}

// LoadDetail reads from db what WriteHTML draws for r.
func LoadDetail(ctx context.Context, db *store.DB, r *Experiment, opt HTMLOptions) (*Detail, error) {
	d := &Detail{}
	if opt.Level != nil {
		d.Level = *opt.Level
		if !slices.ContainsFunc(r.Levels, func(l analysis.LevelResult) bool { return l.Level == d.Level }) {
			return nil, fmt.Errorf("level %s: experiment %d has no runs at it (it has %s)", d.Level, r.Exp.ID, levelList(r.Levels))
		}
	} else {
		d.Level = r.detailLevel()
	}
	var err error
	d.Runs, err = analysis.LoadDetail(ctx, db, r.Exp, analysis.DetailOptions{MaxSamplePoints: opt.SamplePoints})
	if err != nil {
		return nil, err
	}
	for _, run := range d.Runs {
		for _, row := range run.Damaged {
			r.warnDamaged(row)
		}
	}
	d.Distributions, err = analysis.LoadDistributions(ctx, db, r.Exp, analysis.Options{IncludeFlagged: r.IncludeFlagged})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// FindLevel returns the level of r that s names: as the report prints it
// ("100/s", "c=8", "100/s c=8"), or a bare number for a rate (or, when the
// experiment ran in closed loop only, a concurrency).
func (r *Experiment) FindLevel(s string) (analysis.Level, error) {
	s = strings.TrimSpace(s)
	for _, l := range r.Levels {
		if l.Level.String() == s || strings.ReplaceAll(l.Level.String(), " ", ",") == s {
			return l.Level, nil
		}
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		for _, l := range r.Levels {
			if l.Rate == x || l.Rate == 0 && float64(l.Concurrency) == x {
				return l.Level, nil
			}
		}
	}
	return analysis.Level{}, fmt.Errorf("%q: experiment %d has no such level (it has %s)", s, r.Exp.ID, levelList(r.Levels))
}

// levelList names the distinct levels of ls, in order.
func levelList(ls []analysis.LevelResult) string {
	var seen []analysis.Level
	s := ""
	for _, l := range ls {
		if slices.Contains(seen, l.Level) {
			continue
		}
		if len(seen) > 0 {
			s += ", "
		}
		seen = append(seen, l.Level)
		s += l.Level.String()
	}
	return s
}

// detailLevel is the highest level at which every variant has counted
// runs, else the highest level of all.
func (r *Experiment) detailLevel() analysis.Level {
	count := map[analysis.Level]int{}
	var levels []analysis.Level
	for _, l := range r.Levels {
		if len(l.RunIDs) == 0 {
			continue
		}
		if count[l.Level] == 0 {
			levels = append(levels, l.Level)
		}
		count[l.Level]++
	}
	if len(levels) == 0 {
		for _, l := range r.Levels {
			levels = append(levels, l.Level)
		}
	}
	var best analysis.Level
	found := false
	for _, lv := range levels {
		all := count[lv] == len(r.variants)
		if !found || (all && (count[best] != len(r.variants) || best.Compare(lv) < 0)) ||
			(!all && count[best] != len(r.variants) && best.Compare(lv) < 0) {
			best, found = lv, true
		}
	}
	return best
}

// WriteHTML writes the report as one self-contained HTML page: the tables
// of WriteText and plots as inline SVG, with no script and nothing fetched
// from the network. d comes from LoadDetail; nil draws the plots that need
// only the aggregates.
func (r *Experiment) WriteHTML(w io.Writer, d *Detail) error {
	if d == nil {
		d = &Detail{Level: r.detailLevel()}
	}
	page := r.htmlPage(d)
	return htmlPage.Execute(w, page)
}
