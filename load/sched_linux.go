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
// 4,000/s waited over half a millisecond about a hundred times a second,
// and its latency p50 read 2 to 8% above the target's.
//
// A real-time thread (SCHED_FIFO) preempts every task of the fair class
// the moment it wakes. It takes no more CPU than it would have taken on
// the fair scheduler, only sooner, unless it has more work than a CPU
// can do: then it would keep a target sharing its CPU from running at
// all. So with RealtimeAuto a loop runs real-time while it is
// light, where this process may (root, CAP_SYS_NICE, or an RLIMIT_RTPRIO
// of 1 or more): it weighs its thread's CPU time every adaptEvery, and
// goes back to the fair scheduler for at least fairHold once it used over
// dutyMost of a CPU, back to real-time once under dutyLeast. A loop at
// 4,000/s uses about a fifth of a CPU; with a bound of half, loops at
// 40,000/s stayed real-time and made stalls of tens of milliseconds in
// one run of three, beside nginx on two CPUs, where a quarter made none.
// RealtimeOn keeps it real-time whatever it uses; RealtimeOff, the
// default, never: a real-time loop that spins before a request keeps a
// fast target on its CPU from answering (see RealtimeAuto).
//
// On the fair scheduler a loop's thread asks for the shortest slice it
// takes (sched_runtime, Linux 6.12 and later; earlier kernels ignore it):
// a task with a short slice has an early deadline when it wakes and
// preempts sooner, with no more CPU than its share.
//
// Threads the loop's thread makes (the Go runtime makes its own elsewhere)
// start with the fair scheduler's defaults: SCHED_FLAG_RESET_ON_FORK.

const (
	// shortSlice is the least slice Linux takes (SCHED_SLICE_MIN).
	shortSlice = 100 * time.Microsecond
	// dutyMost and dutyLeast: the shares of a CPU a loop's thread used
	// over adaptEvery above which an automatically real-time loop goes
	// back to the fair scheduler, and under which it comes back.
	dutyMost, dutyLeast = 0.25, 0.125
	// fairHold is the least time a loop stays on the fair scheduler
	// after it left real-time for using too much, so that a loop at the
	// edge does not flip every adaptEvery.
	fairHold = time.Second
)

// A loopSched is how the kernel runs one loop's thread, for one phase.
// Its methods run on that thread, locked to its goroutine.
type loopSched struct {
	old  *unix.SchedAttr // what the thread had; nil when left alone
	auto bool            // RealtimeAuto where allowed: weigh switches
	fifo bool            // the thread runs SCHED_FIFO now
	cpu  time.Duration   // the thread's CPU time at the last weigh
	at   time.Duration   // and when, on the package clock
	hold time.Duration   // no return to real-time before this
}

// prompt asks the kernel to run the calling thread, which must be locked
// to its goroutine, promptly when it wakes, as mode says. A thread that
// already runs a policy other than the fair one (SCHED_FIFO, SCHED_RR,
// SCHED_IDLE) keeps it: the user set it. With RealtimeOn, an error says
// the thread could not go real-time; it runs as it did. undo gives the
// thread back what it had, and is safe to call whatever prompt returned.
func prompt(mode Realtime) (*loopSched, error) {
	s := &loopSched{}
	old, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return s, fmt.Errorf("reading the thread's scheduling: %w", err)
	}
	if old.Policy != unix.SCHED_NORMAL && old.Policy != unix.SCHED_BATCH {
		return s, nil
	}
	s.old = old
	switch mode {
	case RealtimeOn:
		if err := s.set(true); err != nil {
			s.old = nil
			return s, err
		}
	case RealtimeAuto:
		if s.set(true) == nil {
			s.auto = true
			s.cpu, s.at = threadCPU(), Now()
			break
		}
		fallthrough
	default:
		if err := s.set(false); err != nil {
			s.old = nil
			return s, err
		}
	}
	return s, nil
}

// set runs the thread SCHED_FIFO at priority 1, or on the fair
// scheduler, at its nice value, with the shortest slice.
func (s *loopSched) set(fifo bool) error {
	a := *s.old
	a.Flags = unix.SCHED_FLAG_RESET_ON_FORK
	if fifo {
		a.Policy, a.Priority, a.Nice, a.Runtime = unix.SCHED_FIFO, 1, 0, 0
	} else {
		a.Policy, a.Priority, a.Runtime = s.old.Policy, 0, uint64(shortSlice)
	}
	if err := unix.SchedSetAttr(0, &a, 0); err != nil {
		return err
	}
	s.fifo = fifo
	return nil
}

// weigh, for an automatically real-time loop, switches its thread by the
// share of a CPU it used since the last weigh (see dutyMost). A nil s, a
// loop run outside an engine's phase, is left alone.
func (s *loopSched) weigh(now time.Duration) {
	if s == nil || !s.auto {
		return
	}
	cpu := threadCPU()
	if now > s.at {
		duty := float64(cpu-s.cpu) / float64(now-s.at)
		switch {
		case s.fifo && duty > dutyMost:
			if s.set(false) == nil {
				s.hold = now + fairHold
			}
		case !s.fifo && duty < dutyLeast && now >= s.hold:
			_ = s.set(true)
		}
	}
	s.cpu, s.at = cpu, now
}

// undo gives the thread back the scheduling it had before prompt.
func (s *loopSched) undo() {
	if s.old == nil {
		return
	}
	r := *s.old
	r.Runtime = 0 // back to the scheduler's own slice
	r.Flags &= unix.SCHED_FLAG_RESET_ON_FORK
	_ = unix.SchedSetAttr(0, &r, 0)
	s.old, s.fifo, s.auto = nil, false, false
}

// threadCPU returns the CPU time the calling thread has used.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// CheckRealtime says whether this process may run its event loops as
// real-time threads (RealtimeOn), and if not, why and what would allow
// it.
func CheckRealtime() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s, err := prompt(RealtimeOn)
		s.undo()
		errc <- err
	}()
	if err := <-errc; err != nil {
		return fmt.Errorf("real-time event loops (SCHED_FIFO) are not allowed here: %w; run as root, grant CAP_SYS_NICE, or raise the real-time priority limit (ulimit -r 1)", err)
	}
	return nil
}
