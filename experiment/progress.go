package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/units"
)

// A ProgressLine shows the trial under way, as report.Line does on a
// terminal. Runner calls Show about once a second while a trial's load
// runs, and Clear when that load ends and before it writes the line about
// a finished trial; never two calls at once.
type ProgressLine interface {
	Show(Progress)
	Clear()
}

// Progress is the state of the trial under way.
type Progress struct {
	record.Progress               // the trial's load so far
	Trial           spec.Trial    // the trial, its Position in the plan
	Trials          int           // in the plan
	ToGo            int           // trials of this Run after this one
	Length          time.Duration // the trial's planned load; 0 when unknown
	AllDone         time.Duration // about when this Run's last trial ends, from now; 0 when unknown
}

// String says p in one line: "trial 3 of 12 (9 to go, all done in about
// 5m0s): plain 100/s rep 1, 25s left, rate 100/s, p99 1.234ms, failed 0".
func (p Progress) String() string {
	left, eta := "", ""
	if p.Length > 0 {
		left = fmt.Sprintf(" %s left,", max(p.Length-p.Elapsed, 0).Round(time.Second))
		eta = fmt.Sprintf(", all done in about %s", p.AllDone.Round(time.Second))
	}
	p99 := units.NA
	if p.P99OK {
		p99 = units.Duration(p.P99)
	}
	t := p.Trial
	return fmt.Sprintf("trial %d of %d (%d to go%s): %s %s rep %d,%s rate %s, p99 %s, failed %d",
		t.Position, p.Trials, p.ToGo, eta, textsafe.Escape(t.Variant), t.Level, t.Rep, left, units.Rate(p.Rate), p99, p.Failed)
}

// showProgress shows the progress of trial t, the k-th of the n trials
// this Run does, every second until ctx ends, then clears the line. d is
// the trial's planned load, 0 when unknown.
func (r *Runner) showProgress(ctx context.Context, rec *record.Recorder, t spec.Trial, k, n int, d time.Duration) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.clearProgress()
			return
		case <-tick.C:
			r.showLine(rec.Snapshot(), t, k, n, d)
		}
	}
}

// showLine shows the progress p of trial t, the k-th of the n this Run
// runs, whose measured load lasts d.
func (r *Runner) showLine(rp record.Progress, t spec.Trial, k, n int, d time.Duration) {
	p := Progress{Progress: rp, Trial: t, Trials: r.total, ToGo: n - k - 1, Length: d}
	if d > 0 {
		per := d
		if w := r.Spec.Warmup; w != nil {
			per += w.Duration
		}
		p.AllDone = max(d-p.Elapsed, 0) + time.Duration(p.ToGo)*per
	}
	r.lines.Lock()
	r.Progress.Show(p)
	r.lines.Unlock()
}

// clearProgress clears the live status line, if there is one.
func (r *Runner) clearProgress() {
	if r.Progress == nil {
		return
	}
	r.lines.Lock()
	r.Progress.Clear()
	r.lines.Unlock()
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
	line := fmt.Sprintf("trial %d: %s %s rep %d: %s", t.Position, textsafe.Escape(t.Variant), t.Level, t.Rep, status)
	if f.res != nil {
		if v, ok := record.Quantile(f.res.Latency, 0.99); ok {
			line += fmt.Sprintf(", %d requests, p99 %s", f.res.Requests, units.Duration(v))
		} else {
			line += fmt.Sprintf(", %d requests", f.res.Requests)
		}
	}
	for _, fl := range f.info.Flags {
		line += fmt.Sprintf("; flag %s: %s", fl.Name, textsafe.Escape(fl.Reason))
	}
	if f.err != nil {
		line += ": " + textsafe.Layout(f.err.Error())
	}
	if stored != nil {
		line += ": " + textsafe.Layout(stored.Error())
	}
	r.lines.Lock()
	defer r.lines.Unlock()
	if r.Progress != nil {
		r.Progress.Clear()
	}
	if r.Trials != nil {
		fmt.Fprintln(r.Trials, line)
		return
	}
	r.logf("%s", line)
}
