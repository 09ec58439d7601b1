package load

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// How the kernel runs the threads that send. An event loop's thread
// sleeps most of the time and must run the moment it wakes: a wake-up that
// waits for a CPU is lag in every request due meanwhile. On a machine
// shared with other work, CPU-bound jobs or the target itself, the fair
// scheduler (EEVDF) lets a woken thread wait for the running task's slice,
// a millisecond or more: beside stress-ng --cpu 2 on two CPUs, a loop at
// 4,000/s waited over half a millisecond about a hundred times a second.
// Two remedies:
//
//   - Always, a loop's thread asks for the shortest slice the fair
//     scheduler takes (sched_runtime, Linux 6.12 and later; earlier
//     kernels ignore it). A task with a short slice has an early deadline
//     when it wakes and preempts sooner; it gets no more CPU than its
//     share.
//   - With Config.Realtime, loop threads run SCHED_FIFO at priority 1 and
//     preempt every task of the fair class the moment they wake. That
//     needs CAP_SYS_NICE or an RLIMIT_RTPRIO of 1 or more, and where the
//     loops and the target share a CPU it takes CPU from the target: it is
//     asked for, never the default.
//
// Threads the loop's thread makes (the Go runtime makes its own elsewhere)
// start with the fair scheduler's defaults: SCHED_FLAG_RESET_ON_FORK.

// shortSlice is the least slice Linux takes (SCHED_SLICE_MIN).
const shortSlice = 100 * time.Microsecond

// prompt asks the kernel to run the calling thread, which must be locked
// to its goroutine, promptly when it wakes: SCHED_FIFO when realtime is
// set, else the shortest fair slice. A thread that already runs a
// real-time policy keeps it. The returned function restores what the
// thread had; it is safe to call when prompt failed.
func prompt(realtime bool) (func(), error) {
	old, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return func() {}, fmt.Errorf("reading the thread's scheduling: %w", err)
	}
	if old.Policy != unix.SCHED_NORMAL && old.Policy != unix.SCHED_BATCH {
		return func() {}, nil // SCHED_FIFO, SCHED_RR, SCHED_IDLE: as the user set it
	}
	a := *old
	a.Flags = unix.SCHED_FLAG_RESET_ON_FORK
	if realtime {
		a.Policy, a.Priority, a.Nice, a.Runtime = unix.SCHED_FIFO, 1, 0, 0
	} else {
		a.Policy, a.Runtime = unix.SCHED_NORMAL, uint64(shortSlice)
	}
	if err := unix.SchedSetAttr(0, &a, 0); err != nil {
		return func() {}, err
	}
	return func() {
		r := *old
		r.Runtime = 0 // back to the scheduler's own slice
		r.Flags &= unix.SCHED_FLAG_RESET_ON_FORK
		_ = unix.SchedSetAttr(0, &r, 0)
	}, nil
}

// CheckRealtime says whether this process may run its event loops as
// real-time threads (Config.Realtime), and if not, why and what would
// allow it.
func CheckRealtime() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		undo, err := prompt(true)
		undo()
		errc <- err
	}()
	if err := <-errc; err != nil {
		return fmt.Errorf("real-time event loops (SCHED_FIFO) are not allowed here: %w; run as root, grant CAP_SYS_NICE, or raise the real-time priority limit (ulimit -r 1)", err)
	}
	return nil
}
