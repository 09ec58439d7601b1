package load

import (
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// breakdown splits a response's service time at its first byte: wait from
// the request's last byte written (wrote) to the response's first byte
// read (first), read from there to the last byte (done), all on the clock
// of Now. Both are 0, not measured, unless the three came in that order; a
// measured span is at least 1 ns, so that 0 keeps its meaning.
func breakdown(wrote, first, done time.Duration) (wait, read time.Duration) {
	if wrote <= 0 || first < wrote || done < first {
		return 0, 0
	}
	return max(first-wrote, 1), max(done-first, 1)
}

// wireTimes collects, through httptrace, when a request's last byte was
// written and its response's first byte arrived, on the clock of Now. The
// hooks run on net/http's or x/net/http2's own goroutines, hence the
// atomics. net/http reports the write when the request is in its buffer,
// just before the flush, so its wait includes that one write; x/net/http2
// reports the first byte when the whole head has arrived. A response that
// overtakes the write's report (its writer descheduled) is left out:
// split then finds the two out of order, or the write not yet reported.
type wireTimes struct{ wrote, first atomic.Int64 }

func (w *wireTimes) wroteRequest(info httptrace.WroteRequestInfo) {
	if info.Err == nil {
		w.wrote.Store(int64(Now()))
	}
}

func (w *wireTimes) gotFirstByte() { w.first.Store(int64(Now())) }

// split returns the breakdown of a response read in full at done.
func (w *wireTimes) split(done time.Duration) (wait, read time.Duration) {
	return breakdown(time.Duration(w.wrote.Load()), time.Duration(w.first.Load()), done)
}
