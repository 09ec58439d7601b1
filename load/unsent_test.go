package load

import (
	"context"
	"testing"
	"time"
)

// burstAtEnd is a schedule whose requests come in two bursts: warm, due at
// the start (so that idle workers wait for jobs), then late, all due just
// before the phase's end, so that hand-offs race the deadline.
type burstAtEnd struct {
	warm, late int64
	end        time.Duration
}

func (b burstAtEnd) Due(i int64) (time.Duration, bool) {
	switch {
	case i < b.warm:
		return 0, true
	case i < b.warm+b.late:
		return b.end - 200*time.Microsecond, true
	}
	return 0, false
}

func (b burstAtEnd) Mean() float64 { return float64(b.warm+b.late) / b.end.Seconds() }

// TestOpenNoneLostAtDeadline hands requests to idle workers as the
// deadline passes, many times over: whatever the machine's load, every
// request due before the end is either sent or counted as unsent.
func TestOpenNoneLostAtDeadline(t *testing.T) {
	srv := newCountingServer(t, 0)
	const end = 30 * time.Millisecond
	p := burstAtEnd{warm: 20, late: 200, end: end}
	for round := range 20 {
		res := attack(t, context.Background(), Config{
			Source:   staticTo(t, srv.URL),
			Model:    Open{Pacer: p},
			Duration: end,
		})
		if due := p.warm + p.late; res.Sent+res.Unsent != due {
			t.Fatalf("round %d: sent %d and unsent %d, want %d due in all", round, res.Sent, res.Unsent, due)
		}
	}
}
