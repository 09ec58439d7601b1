package report

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/units"
)

// A Line is one live status line on a terminal: each Show draws its
// status over the one before, and Clear erases it. T is the status, which
// says itself: an AttackStatus, or an experiment's progress. A Line is safe
// for concurrent use.
type Line[T fmt.Stringer] struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLine returns a status line drawn on w.
func NewLine[T fmt.Stringer](w io.Writer) *Line[T] { return &Line[T]{w: w} }

// Show draws s over the status shown before, starting with a carriage
// return and erasing what is left of the line after it.
func (l *Line[T]) Show(s T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r%s\x1b[K", textsafe.Escape(s.String()))
}

// Clear erases the line, leaving the cursor at its start.
func (l *Line[T]) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprint(l.w, "\r\x1b[K")
}

// AttackStatus is the state of an attack under way, as its status line
// says it. Total is the planned length, 0 when unknown.
type AttackStatus struct {
	record.Progress
	Total time.Duration
}

// String says the attack's state in one line: time gone and left, rate,
// requests in flight and done, p99 so far and failures.
func (p AttackStatus) String() string {
	el := p.Elapsed.Round(time.Second)
	left := ""
	if p.Total > 0 {
		left = fmt.Sprintf(" / %s (%s left)", p.Total, max(p.Total-p.Elapsed, 0).Round(time.Second))
	}
	p99 := units.NA
	if p.P99OK {
		p99 = units.Duration(p.P99)
	}
	return fmt.Sprintf("%s%s  rate %s  in flight %d  done %d  p99 %s  failed %d",
		el, left, units.Rate(p.Rate), p.InFlight, p.Completed, p99, p.Failed)
}
