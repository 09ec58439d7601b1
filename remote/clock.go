package remote

import "time"

// A ClockSample is one exchange of the coordinator with a shard: when the
// coordinator sent its request and received the answer, on its own clock,
// and the shard's clock as it answered.
type ClockSample struct {
	Sent, Received time.Time // the coordinator's clock
	Shard          time.Time // the shard's clock, between the two
}

// RTT is the exchange's round trip.
func (s ClockSample) RTT() time.Duration { return s.Received.Sub(s.Sent) }
