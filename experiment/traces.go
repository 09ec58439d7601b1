package experiment

import (
	"context"
	"time"

	"github.com/latlab/latlab/probe"
)

// tracePoints waits traceFlush for the last spans of a measured attack
// that ran from start to end, or until ctx ends, and returns the hops of
// the spans rcv received that started between the two, as points timed
// from start (see probe.TraceReceiver.PointsBetween). It then forgets the
// spans that started before end: no later attack's window holds them.
// err is ctx's if ctx cut the wait short; the spans already in count.
func tracePoints(ctx context.Context, rcv *probe.TraceReceiver, start, end time.Time) ([]probe.Point, error) {
	flushed := time.NewTimer(traceFlush)
	defer flushed.Stop()
	var err error
	select {
	case <-flushed.C:
	case <-ctx.Done():
		err = ctx.Err()
	}
	points := rcv.PointsBetween(start, end)
	rcv.Forget(end)
	return points, err
}
