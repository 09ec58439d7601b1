package report

import (
	"fmt"

	"github.com/latlab/latlab/analysis"
)

// shardSection sets the shards of each variant's representative run side
// by side, when its load was sharded: what each sent, its latency, its
// clock's offset from the coordinator's and when it started.
func (r *Experiment) shardSection(_ *Detail, reps []*analysis.RunDetail) (htmlSection, bool) {
	s := htmlSection{ID: "shards", Title: "Shards",
		Intro: []string{"Each shard of the representative runs, with its own result: the run's figures are the shards' merged " +
			"exactly, histograms added bucket by bucket. Offset is the shard's clock less the coordinator's, within ± its bound; " +
			"start is when its measured load began, after the earliest shard's, on the coordinator's clock."}}
	t := htmlTable{Head: append([]string{"variant", "run"}, shardHead...)}
	for _, run := range reps {
		for _, row := range shardRows(run.Shards) {
			cells := []htmlCell{{Text: run.Variant}, {Text: fmt.Sprint(run.ID)}}
			for i, c := range row.cells() {
				cell := htmlCell{Text: c, Class: "num"}
				// Where it ran, and a lost shard's reason with the empty
				// cells after it, are not numbers.
				if i == 1 || row.Lost && i >= 2 && i <= 5 {
					cell.Class = ""
				}
				cells = append(cells, cell)
			}
			t.Rows = append(t.Rows, cells)
		}
	}
	if len(t.Rows) == 0 {
		return s, false
	}
	s.Tables = []htmlTable{t}
	return s, true
}
