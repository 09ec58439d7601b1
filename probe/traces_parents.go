package probe

import (
	"strings"
	"time"
)

// defaultParentWait is TraceReceiver.ParentWait's default.
const defaultParentWait = time.Second

func (r *TraceReceiver) parentWait() time.Duration {
	if r.ParentWait == 0 {
		return defaultParentWait
	}
	return r.ParentWait
}

// observerRoute says whether route is one that latlab itself calls on a
// graph node besides the load: the metrics scrape, the profiles and the
// readiness check. The node traces these requests like any other, as
// roots, but the load generator did not send them, so they are no hop.
func observerRoute(route string) bool {
	return route == "/metrics" || route == "/healthz" || strings.HasPrefix(route, "/debug/pprof/")
}

// settled returns the spans held once every server span that started in
// [start, end) and names a parent has that parent among them, or has
// waited ParentWait since it arrived, whichever comes first.
//
// A graph node ends a server span after the spans it calls, so its export
// may come after theirs: a child can arrive in one batch and its parent in
// its service's next. Reading hops before the parent is in would count the
// child as an orphan.
func (r *TraceReceiver) settled(start, end time.Time) []Span {
	spans, epoch, arrived := r.watch()
	wait := r.parentWait()
	if wait < 0 {
		return spans
	}
	missing := missingParents(spans, start, end, wait)
	for len(missing) > 0 {
		var last time.Time
		for _, deadline := range missing {
			if deadline.After(last) {
				last = deadline
			}
		}
		d := time.Until(last)
		if d <= 0 {
			break
		}
		timer := time.NewTimer(d)
		select {
		case <-arrived:
		case <-timer.C:
		}
		timer.Stop()
		next, nextEpoch, nextArrived := r.watch()
		if nextEpoch != epoch {
			missing = missingParents(next, start, end, wait) // Forget made a new slice
		} else {
			for i := len(spans); i < len(next); i++ {
				delete(missing, spanKey{next[i].TraceID, next[i].SpanID})
			}
		}
		spans, epoch, arrived = next, nextEpoch, nextArrived
	}
	return spans
}

// missingParents returns the parents named by server spans that started
// in [start, end) but absent from spans, each with the time to give up on
// it: wait after the arrival of the last span naming it.
func missingParents(spans []Span, start, end time.Time, wait time.Duration) map[spanKey]time.Time {
	held := make(map[spanKey]struct{}, len(spans))
	for i := range spans {
		held[spanKey{spans[i].TraceID, spans[i].SpanID}] = struct{}{}
	}
	missing := map[spanKey]time.Time{}
	for i := range spans {
		s := &spans[i]
		if s.Kind != SpanKindServer || s.ParentID == [8]byte{} || observerRoute(s.Route) || !inWindow(s.Start, start, end) {
			continue
		}
		k := spanKey{s.TraceID, s.ParentID}
		if _, ok := held[k]; ok {
			continue
		}
		if deadline := s.Received.Add(wait); deadline.After(missing[k]) {
			missing[k] = deadline
		}
	}
	return missing
}
