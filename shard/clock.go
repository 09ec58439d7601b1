package shard

import (
	"time"

	"github.com/latlab/latlab/remote"
)

// Offset estimates how far a shard's clock is ahead of the coordinator's
// from exchanges with it, as NTP does: the shard read its clock somewhere
// within the round trip, so its offset is its reading less the round
// trip's midpoint, within half the round trip either way. The exchange of
// the shortest round trip, the one least delayed by queues, is taken.
// bound is half its round trip: the true offset is within offset ± bound.
// ok is false without an exchange whose round trip is positive.
func Offset(samples []remote.ClockSample) (offset, bound time.Duration, ok bool) {
	best := -1
	for i, s := range samples {
		if s.RTT() < 0 || s.Shard.IsZero() {
			continue
		}
		if best < 0 || s.RTT() < samples[best].RTT() {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	s := samples[best]
	mid := s.Sent.Add(s.RTT() / 2)
	return s.Shard.Sub(mid), s.RTT() / 2, true
}

// Skewed reports whether a shard's clock may be off by more than max:
// whether |offset| + bound, the farthest the true offset can be, exceeds
// it. A coordinator that cannot tell (a round trip too long for the
// bound) treats the clock as skewed: the start spread it could promise
// would be no better.
func Skewed(offset, bound, max time.Duration) bool {
	if offset < 0 {
		offset = -offset
	}
	return offset+bound > max
}
