package load

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// precise readies the calling goroutine for sleepUntil: it gets its own
// thread with 1 ns timer slack, so that a nanosleep wakes within
// microseconds rather than the 50 µs slack of a default thread or the 1 ms
// the Go scheduler rounds short sleeps to when idle. The returned function
// undoes it.
func precise() func() {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	return func() {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 50_000, 0, 0, 0)
		runtime.UnlockOSThread()
	}
}

// nap sleeps for d nanoseconds on the calling thread.
func nap(d int64) {
	ts := unix.NsecToTimespec(d)
	_ = unix.Nanosleep(&ts, nil)
}
