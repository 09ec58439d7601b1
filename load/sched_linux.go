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
// 4,000/s sent a tenth of its requests over 600 µs late, and its latency
// p50 read 4 to 6% above the target's.
//
// A real-time thread (SCHED_FIFO) preempts every task of the fair class
// the moment it wakes. It takes no more CPU than it would have taken on
// the fair scheduler, only sooner, unless it has more work than a CPU
// can do: then it would keep a target sharing its CPU from running at
// all. And on a quiet machine it costs a fast target: a real-time loop
// that spins the last microseconds before each request keeps a target on
// its CPU from answering meanwhile (nginx at 5,000/s: latency p50 33 µs
// against 16 µs on the fair scheduler).
//
// So with RealtimeAuto, the default, a loop runs on the fair scheduler
// and goes real-time, where this process may (root, CAP_SYS_NICE, or an
// RLIMIT_RTPRIO of 1 or more), only while the fair scheduler wakes it
// late and it is light (weigh): late wake-ups are the sign of other work
// on its CPU, and they are what real-time cures. A real-time loop tries
// the fair scheduler again after each stint, for a span, and leaves
// real-time for at least fairHold once it uses over dutyMost of a CPU: a
// loop at 4,000/s uses about a fifth of one; with a bound of half, loops
// at 40,000/s stayed real-time and made stalls of tens of milliseconds in
// one run of three, beside nginx on two CPUs, where a quarter made none.
// RealtimeOn keeps a loop real-time whatever it uses; RealtimeOff never.
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
	// dutyMost is the share of a CPU, averaged over dutyWeighs weighs
	// (an exponential moving average), above which a loop left to choose
	// leaves real-time, and stays on the fair scheduler for at least
	// fairHold, so that a loop at the edge does not flip every
	// adaptEvery. A loop over it never goes real-time.
	dutyMost   = 0.25
	dutyWeighs = 4
	fairHold   = time.Second
	// A wake-up farMark later than meant is late. A span of wake-ups on
	// the fair scheduler is weighed once it holds spanWakes of them or
	// lasted spanMost; one with at least lateLeast late, and over
	// lateMore of them, sends a light loop real-time for a stint, at
	// least stintLeast and at most stintMost.
	farMark               = 200 * time.Microsecond
	spanWakes             = 100
	spanMost              = time.Second
	lateLeast             = 3
	stintLeast, stintMost = 2 * time.Second, 16 * time.Second
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
	// stint is how long the loop stays real-time before it tries the fair
	// scheduler again, until; probe: it is trying it now.
	stint, until time.Duration
	probe        bool
	duty         float64 // the share of a CPU used real-time, averaged
	// The span of wake-ups on the fair scheduler being weighed: from when,
	// how many, how many farMark late.
	from       time.Duration
	wakes, far int
}

// prompt asks the kernel to run the calling thread, which must be locked
// to its goroutine, promptly when it wakes, as mode says. A thread that
// already runs a policy other than the fair one (SCHED_FIFO, SCHED_RR,
// SCHED_IDLE) keeps it: the user set it. With RealtimeOn, an error says
// the thread could not go real-time; it runs as it did. With
// RealtimeAuto the thread starts on the fair scheduler, and weigh moves
// it, from where the loop's last phase left it (last, nil for none): a
// loop that was real-time at the end of a warm-up begins its measured load
// real-time. undo gives the thread back what it had, and is safe to call
// whatever prompt returned.
func prompt(mode Realtime, last *loopSched) (*loopSched, error) {
	s := &loopSched{}
	old, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return s, fmt.Errorf("reading the thread's scheduling: %w", err)
	}
	if old.Policy != unix.SCHED_NORMAL && old.Policy != unix.SCHED_BATCH {
		return s, nil
	}
	s.old = old
	if mode == RealtimeOn {
		if err := s.set(true); err != nil {
			s.old = nil
			return s, err
		}
		return s, nil
	}
	if mode == RealtimeAuto && s.set(true) == nil {
		s.auto = true // it may
		s.cpu, s.at = threadCPU(), Now()
		s.span(s.at)
		if last != nil && last.auto {
			s.hold, s.stint, s.until, s.probe = last.hold, last.stint, last.until, last.probe
			if last.fifo {
				return s, nil
			}
		}
	}
	if err := s.set(false); err != nil {
		s.old, s.auto = nil, false
		return s, err
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
	if !fifo {
		// Linux gives a real-time thread no timer slack, and one that
		// leaves real-time the slack it was born with (50 µs), not the
		// one precise set: every timed wake-up would then come up to
		// 50 µs late, 25 µs on average.
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	}
	s.fifo = fifo
	if fifo && testHookFIFO != nil {
		testHookFIFO()
	}
	return nil
}

// testHookFIFO, when set, is called as a loop's thread goes real-time.
var testHookFIFO func()

// weigh, for a loop left to choose (RealtimeAuto), moves its thread by
// what the loop saw since the last weigh: wakes wake-ups for the schedule,
// far of them farMark or more later than meant, and the share of a CPU the
// thread used. On the fair scheduler it adds the wake-ups up over a span
// (spanWakes of them, or spanMost); a light loop (under dutyMost) whose
// span had wake-ups that late (at least lateLeast, and over lateMore of
// them) goes real-time for a stint. After it, the loop tries the fair
// scheduler again for a span, and if that is late too, goes back for
// twice the stint (up to stintMost); a try on time ends it. A real-time
// loop that used over dutyMost of a CPU goes back to the fair scheduler
// for at least fairHold. A nil s, a loop run outside an engine's phase, is
// left alone.
//
// A wake-up farMark late is the mark of a thread that waited for a CPU:
// on a quiet machine, a loop at 5,000/s beside nginx had at most one in
// a weigh of 250, beside stress-ng --cpu 2 one at 4,000/s had 4 to 17 of
// about 160.
func (s *loopSched) weigh(now time.Duration, wakes, far int) {
	if s == nil || !s.auto {
		return
	}
	cpu := threadCPU()
	duty := 0.0
	if now > s.at {
		duty = float64(cpu-s.cpu) / float64(now-s.at)
	}
	s.cpu, s.at = cpu, now
	if s.fifo {
		// The share a real-time loop takes, averaged over a few weighs:
		// one busy weigh is no reason to leave.
		s.duty += (duty - s.duty) / dutyWeighs
		switch {
		case s.duty > dutyMost:
			if s.set(false) == nil {
				s.hold, s.probe, s.stint = now+fairHold, false, 0
				s.span(now)
			}
		case now >= s.until:
			if s.set(false) == nil {
				s.probe = true
				s.span(now)
			}
		}
		return
	}
	s.wakes, s.far = s.wakes+wakes, s.far+far
	if s.wakes < spanWakes && now-s.from < spanMost {
		return
	}
	behind := s.far >= lateLeast && float64(s.far) > lateMore*float64(s.wakes)
	s.span(now)
	switch {
	case behind && duty < dutyMost && now >= s.hold:
		stint := stintLeast
		if s.probe {
			stint = min(stintMost, 2*s.stint)
		}
		if s.set(true) == nil {
			s.stint, s.until, s.probe, s.duty = stint, now+stint, false, duty
		}
	case !behind:
		s.probe = false
	}
}

// span begins a new span of wake-ups to weigh at now.
func (s *loopSched) span(now time.Duration) {
	s.wakes, s.far, s.from = 0, 0, now
}

// undo gives the thread back the scheduling it had before prompt, and
// returns where the phase left it, for the next phase's prompt.
func (s *loopSched) undo() *loopSched {
	if s == nil {
		return nil
	}
	left := *s
	if s.old == nil {
		return &left
	}
	r := *s.old
	r.Runtime = 0 // back to the scheduler's own slice
	r.Flags &= unix.SCHED_FLAG_RESET_ON_FORK
	_ = unix.SchedSetAttr(0, &r, 0)
	s.old, s.fifo, s.auto = nil, false, false
	return &left
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
		s, err := prompt(RealtimeOn, nil)
		s.undo()
		errc <- err
	}()
	if err := <-errc; err != nil {
		return fmt.Errorf("real-time event loops (SCHED_FIFO) are not allowed here: %w; run as root, grant CAP_SYS_NICE, or raise the real-time priority limit (ulimit -r 1)", err)
	}
	return nil
}

// realtime says whether the thread runs SCHED_FIFO now.
func (s *loopSched) realtime() bool { return s != nil && s.fifo }
