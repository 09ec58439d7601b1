package report

import (
	"fmt"
	"io"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/units"
)

// Progress writes one status line for a run in progress, starting with a
// carriage return so that successive lines overwrite each other on a
// terminal. total is the planned length, 0 when unknown.
func Progress(w io.Writer, p record.Progress, total time.Duration) {
	el := p.Elapsed.Round(time.Second)
	left := ""
	if total > 0 {
		left = fmt.Sprintf(" / %s (%s left)", total, max(total-p.Elapsed, 0).Round(time.Second))
	}
	p99 := "n/a"
	if p.P99OK {
		p99 = units.Duration(p.P99)
	}
	fmt.Fprintf(w, "\r%s%s  rate %s  in flight %d  done %d  p99 %s  failed %d\x1b[K",
		el, left, units.Rate(p.Rate), p.InFlight, p.Completed, p99, p.Failed)
}
