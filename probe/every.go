package probe

import (
	"context"
	"time"
)

// sampleEvery calls sample at once and then every interval until ctx ends,
// with the offset from start, and hands each call's points, when there are
// any, to emit from the calling goroutine. With last it samples once more
// when ctx ends.
func sampleEvery(ctx context.Context, interval time.Duration, start time.Time, last bool, sample func(at time.Duration) []Point, emit func([]Point)) {
	take := func() {
		if points := sample(time.Since(start)); len(points) > 0 {
			emit(points)
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		take()
		select {
		case <-ctx.Done():
		case <-tick.C:
			// A tick and the end can be ready at once, and select picks
			// either: the end wins, so nothing is sampled after it.
			if ctx.Err() == nil {
				continue
			}
		}
		if last {
			take()
		}
		return
	}
}
