package report

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/store"
)

// runShards are the shards of one sharded run, as rows.
type runShards struct {
	run  analysis.Run
	rows []shardRow
}

// LoadShards reads the shards of every sharded run from db, which the
// text report then shows for each variant's representative run and the
// JSON report for every run.
func (r *Experiment) LoadShards(ctx context.Context, db *store.DB) error {
	r.shards = nil
	for _, run := range r.Exp.Runs {
		shards, err := db.Shards(ctx, run.ID)
		rows, ok := store.DamagedRows(err)
		if !ok {
			return err
		}
		for _, row := range rows {
			r.warnDamaged(row)
		}
		if len(shards) > 0 {
			r.shards = append(r.shards, runShards{run: run, rows: shardRows(shards)})
		}
	}
	return nil
}

// shardText writes, when the representative run of any variant at the
// level drawn in detail was sharded, a table of its shards and a line
// per run that sums them up; nothing otherwise.
func (r *Experiment) shardText(b *strings.Builder) {
	if len(r.shards) == 0 {
		return
	}
	level := r.detailLevel()
	runs := make([]analysis.RunDetail, len(r.Exp.Runs))
	for i, run := range r.Exp.Runs {
		runs[i].Run = run
	}
	var shown []runShards
	for _, rep := range r.representativesAt(runs, level) {
		for _, rs := range r.shards {
			if rs.run.ID == rep.ID {
				shown = append(shown, rs)
			}
		}
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintf(b, "\nShards of each variant's representative run at %s (its median run by p50), each with its own result:\n"+
		"the run's figures are the shards' merged exactly. Offset is the shard's clock less the coordinator's,\n"+
		"within ± its bound; start is when its measured load began, after the earliest shard's.\n\n", level)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\trun\t"+strings.Join(shardHead, "\t"))
	for _, rs := range shown {
		for _, row := range rs.rows {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", textsafe.Escape(rs.run.Variant), rs.run.ID, strings.Join(row.textCells(), "\t"))
		}
	}
	tw.Flush()
	for _, rs := range shown {
		fmt.Fprintf(b, "  %s run %d, %d shards: %s\n", textsafe.Escape(rs.run.Variant), rs.run.ID, len(rs.rows), spreadOf(rs.rows))
	}
}
