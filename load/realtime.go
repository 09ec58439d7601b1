package load

import (
	"errors"
	"fmt"
	"strconv"
)

// Realtime says when an open loop's event loops run as real-time threads
// (SCHED_FIFO), ahead of everything the fair scheduler runs. A loop that
// wakes for a request and waits for a CPU sends it late, and the wait is
// in its latency: on a machine busy with other work (a test suite, a
// build, the target itself) the fair scheduler can keep a woken thread
// waiting a millisecond or more. See sched_linux.go.
type Realtime string

const (
	// RealtimeAuto, the default, runs each loop on the fair scheduler,
	// and real-time while the fair scheduler wakes it late and it uses
	// under a quarter of a CPU, where this process may run real-time
	// threads (root, CAP_SYS_NICE or an RLIMIT_RTPRIO of 1 or more). On
	// a quiet machine a loop stays on the fair scheduler: a real-time
	// loop that spins before its requests keeps a fast target sharing its
	// CPU from answering (nginx at 5,000/s: latency p50 33 µs against
	// 16 µs). On a busy one it sends on time (beside stress-ng --cpu 2 at
	// 4,000/s: latency p50 within 0.2% of the target's, 6% above it on the
	// fair scheduler alone).
	RealtimeAuto Realtime = ""
	// RealtimeOff keeps every loop on the fair scheduler, asking only
	// for its shortest slice.
	RealtimeOff Realtime = "false"
	// RealtimeOn runs every loop real-time whatever it uses, and fails
	// the attack where this process may not (CheckRealtime).
	RealtimeOn Realtime = "true"
)

// ParseRealtime reads true, false or auto (and strconv.ParseBool's other
// spellings of true and false).
func ParseRealtime(s string) (Realtime, error) {
	if s == "auto" || s == "" {
		return RealtimeAuto, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return RealtimeOff, fmt.Errorf("want true, false or auto, got %q", s)
	}
	if b {
		return RealtimeOn, nil
	}
	return RealtimeOff, nil
}

// String returns true, false or auto.
func (r Realtime) String() string {
	if r == RealtimeAuto {
		return "auto"
	}
	return string(r)
}

// Set reads a flag's value, as ParseRealtime does; the error leaves the
// value to the flag's own message.
func (r *Realtime) Set(s string) error {
	v, err := ParseRealtime(s)
	if err != nil {
		return errors.New("want true, false or auto")
	}
	*r = v
	return nil
}

// Type names the flag's value in help.
func (*Realtime) Type() string { return "true|false|auto" }
