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
	// RealtimeOff, the default, keeps every loop on the fair scheduler,
	// asking only for its shortest slice.
	RealtimeOff Realtime = ""
	// RealtimeAuto runs each loop real-time while it uses under a
	// quarter of a CPU, where this process may run real-time threads
	// (root, CAP_SYS_NICE or an RLIMIT_RTPRIO of 1 or more), and on the
	// fair scheduler otherwise. A light loop then wakes on time however
	// busy the machine, and takes no more CPU than it would have; a
	// busier one goes back to taking turns. It is not the default: on a
	// quiet machine, a real-time loop keeps a fast target sharing its
	// CPU from answering until it sleeps (nginx at 5,000/s: latency p50
	// 37–42 µs against 16 µs on the fair scheduler).
	RealtimeAuto Realtime = "auto"
	// RealtimeOn runs every loop real-time whatever it uses, and fails
	// the attack where this process may not (CheckRealtime).
	RealtimeOn Realtime = "true"
)

// ParseRealtime reads true, false or auto (and strconv.ParseBool's other
// spellings of true and false).
func ParseRealtime(s string) (Realtime, error) {
	if s == "auto" {
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
	if r == RealtimeOff {
		return "false"
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
