package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/report"
)

// showProgress writes a status line every second until ctx ends: the trial,
// its level, time left and p99 so far.
func (r *Runner) showProgress(ctx context.Context, rec *record.Recorder, t Trial, k, n int, d time.Duration) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.lines.Lock()
			fmt.Fprint(r.Progress, "\r\x1b[K")
			r.lines.Unlock()
			return
		case <-tick.C:
			p := rec.Snapshot()
			p99 := "n/a"
			if p.P99OK {
				p99 = report.Duration(p.P99)
			}
			left := ""
			if d > 0 {
				left = fmt.Sprintf(" %s left,", max(d-p.Elapsed, 0).Round(time.Second))
			}
			eta := ""
			if d > 0 {
				per := d
				if w := r.Spec.Warmup; w != nil {
					per += w.Duration
				}
				eta = fmt.Sprintf(", all done in about %s", (max(d-p.Elapsed, 0) + time.Duration(n-k-1)*per).Round(time.Second))
			}
			r.lines.Lock()
			fmt.Fprintf(r.Progress, "\rtrial %d of %d (%d to go%s): %s %s rep %d,%s rate %s, p99 %s, failed %d\x1b[K",
				t.Position, r.total, n-k-1, eta, t.Variant, t.Level, t.Rep, left, report.Rate(p.Rate), p99, p.Failed)
			r.lines.Unlock()
		}
	}
}

// logTrial writes one line about a finished trial once the writer is done
// with it: its status once committed; if it could not be committed, why,
// and the side file that keeps it. Written while the next trial runs, the
// line first clears the live status line, which the next tick redraws.
func (r *Runner) logTrial(f *finished, side string, stored error) {
	t := f.trial
	status := string(f.info.Status)
	switch {
	case stored != nil && side != "":
		status = fmt.Sprintf("measured (%s), not stored: kept in %s", f.info.Status, side)
	case stored != nil:
		status = fmt.Sprintf("measured (%s), not stored", f.info.Status)
	}
	line := fmt.Sprintf("trial %d: %s %s rep %d: %s", t.Position, t.Variant, t.Level, t.Rep, status)
	if f.res != nil {
		if v, ok := record.Quantile(f.res.Latency, 0.99); ok {
			line += fmt.Sprintf(", %d requests, p99 %s", f.res.Requests, report.Duration(v))
		} else {
			line += fmt.Sprintf(", %d requests", f.res.Requests)
		}
	}
	for _, fl := range f.info.Flags {
		line += fmt.Sprintf("; flag %s: %s", fl.Name, fl.Reason)
	}
	if f.err != nil {
		line += ": " + f.err.Error()
	}
	if stored != nil {
		line += ": " + stored.Error()
	}
	r.lines.Lock()
	defer r.lines.Unlock()
	if r.Progress != nil {
		fmt.Fprint(r.Progress, "\r\x1b[K")
	}
	if r.Trials != nil {
		fmt.Fprintln(r.Trials, line)
		return
	}
	r.logf("%s", line)
}
