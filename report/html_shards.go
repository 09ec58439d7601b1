package report

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/units"
)

// shardSection sets the shards of each variant's representative run side
// by side, when its load was sharded: what each sent, its latency, its
// clock's offset from the coordinator's and when it started.
func (r *Experiment) shardSection(_ *Detail, reps []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "shards", Title: "Shards",
		Intro: []string{"Each shard of the representative runs, with its own result: the run's figures are the shards' merged " +
			"exactly, histograms added bucket by bucket. Offset is the shard's clock less the coordinator's, within ± its bound; " +
			"start is when its measured load began, after the earliest shard's, on the coordinator's clock."}}
	t := htmlTable{Head: []string{"variant", "run", "shard", "runs on", "sent", "achieved", "p50", "p99", "offset", "start"}}
	for _, run := range reps {
		var first time.Time
		for _, sh := range run.Shards {
			if !sh.Start.IsZero() && (first.IsZero() || sh.Start.Before(first)) {
				first = sh.Start
			}
		}
		for _, sh := range run.Shards {
			where := sh.Name
			if sh.Node != "" {
				where += " on " + sh.Node
			}
			cells := []htmlCell{{Text: run.Variant}, {Text: fmt.Sprint(run.ID)}, {Text: fmt.Sprint(sh.Index), Class: "num"}, {Text: where}}
			res := sh.Result
			switch {
			case res == nil:
				cells = append(cells, htmlCell{Text: "lost: " + sh.Error}, htmlCell{}, htmlCell{}, htmlCell{})
			default:
				// n/a from too few samples, as every percentile of the report.
				p := func(q float64) string {
					if res.Latency == nil {
						return "n/a"
					}
					if d, ok := record.Quantile(res.Latency, q); ok {
						return units.Duration(d)
					}
					return "n/a"
				}
				cells = append(cells, htmlCell{Text: fmt.Sprint(res.Sent), Class: "num"}, htmlCell{Text: units.Rate(res.SendRate()), Class: "num"},
					htmlCell{Text: p(0.50), Class: "num"}, htmlCell{Text: p(0.99), Class: "num"})
			}
			start := ""
			if !sh.Start.IsZero() {
				start = "+" + units.Duration(sh.Start.Sub(first))
			}
			cells = append(cells, htmlCell{Text: units.Duration(sh.Offset) + " ± " + units.Duration(sh.OffsetBound), Class: "num"},
				htmlCell{Text: start, Class: "num"})
			t.Rows = append(t.Rows, cells)
		}
	}
	if len(t.Rows) == 0 {
		return s, false
	}
	s.Tables = []htmlTable{t}
	return s, true
}
