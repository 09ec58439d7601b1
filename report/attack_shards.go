package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/store"
)

// WriteAttackShards writes the block latlab attack --shards prints after
// its merged result: how far apart the shards started and the clock
// furthest off, then a line per shard with what it sent, its achieved
// rate, p50 and p99, its clock's offset and its start after the
// earliest shard's. It writes nothing without shards.
func WriteAttackShards(w io.Writer, shards []store.Shard) error {
	if len(shards) == 0 {
		return nil
	}
	rows := shardRows(shards)
	var b strings.Builder
	fmt.Fprintf(&b, "\nShards     %d, %s\n", len(rows), spreadOf(rows))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  "+strings.Join(shardHead, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(row.textCells(), "\t"))
	}
	tw.Flush()
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
	return err
}
