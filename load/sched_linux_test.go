package load

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// onThread runs f on a thread of its own, locked to it.
func onThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f()
	}()
	<-done
}

func schedAttr(t *testing.T) *unix.SchedAttr {
	t.Helper()
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatalf("sched_getattr: %v", err)
	}
	return a
}

// TestPromptSlice holds that a loop's thread asks for the shortest fair
// slice, threads it makes start afresh, and the thread gets back what it
// had.
func TestPromptSlice(t *testing.T) {
	onThread(func() {
		before := schedAttr(t)
		if before.Policy != unix.SCHED_NORMAL {
			t.Skipf("this thread runs policy %d, which prompt leaves alone", before.Policy)
		}
		ls, err := prompt(RealtimeOff, nil)
		if err != nil {
			t.Fatalf("prompt: %v", err)
		}
		a := schedAttr(t)
		if a.Policy != unix.SCHED_NORMAL || a.Nice != before.Nice {
			t.Errorf("policy %d nice %d, want the fair policy at nice %d", a.Policy, a.Nice, before.Nice)
		}
		if a.Flags&unix.SCHED_FLAG_RESET_ON_FORK == 0 {
			t.Errorf("flags %#x: threads this one makes would inherit its scheduling", a.Flags)
		}
		if a.Runtime != uint64(shortSlice) {
			t.Logf("slice %d ns: this kernel (before Linux 6.12) keeps no slice of a thread's own", a.Runtime)
		}
		ls.undo()
		if after := schedAttr(t); after.Policy != before.Policy || after.Runtime != before.Runtime ||
			after.Nice != before.Nice || after.Flags != before.Flags {
			t.Errorf("after undo: %+v, want %+v", *after, *before)
		}
	})
}

// TestPromptRealtime holds that a real-time loop thread runs SCHED_FIFO
// at priority 1 and gets its own scheduling back after; where the process
// may not, CheckRealtime says why and what would allow it.
func TestPromptRealtime(t *testing.T) {
	if err := CheckRealtime(); err != nil {
		for _, w := range []string{"SCHED_FIFO", "CAP_SYS_NICE", "ulimit -r"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("CheckRealtime: %v; want it to name %s", err, w)
			}
		}
		t.Skipf("real-time threads not allowed here: %v", err)
	}
	onThread(func() {
		before := schedAttr(t)
		ls, err := prompt(RealtimeOn, nil)
		if err != nil {
			t.Fatalf("prompt: %v", err)
		}
		if a := schedAttr(t); a.Policy != unix.SCHED_FIFO || a.Priority != 1 || a.Flags&unix.SCHED_FLAG_RESET_ON_FORK == 0 {
			t.Errorf("policy %d priority %d flags %#x, want SCHED_FIFO at 1, reset on fork", a.Policy, a.Priority, a.Flags)
		}
		ls.undo()
		if after := schedAttr(t); after.Policy != before.Policy || after.Nice != before.Nice || after.Priority != before.Priority {
			t.Errorf("after undo: %+v, want %+v", *after, *before)
		}
	})
}

// TestPromptAuto holds that a loop left to choose starts on the fair
// scheduler, goes real-time where allowed once a span of its wake-ups came
// late while it is light, tries the fair scheduler again after its stint
// and goes back for twice as long if that is late too, and leaves
// real-time for at least fairHold once it used over a quarter of a CPU.
func TestPromptAuto(t *testing.T) {
	onThread(func() {
		before := schedAttr(t)
		if before.Policy != unix.SCHED_NORMAL {
			t.Skipf("this thread runs policy %d, which prompt leaves alone", before.Policy)
		}
		ls, err := prompt(RealtimeAuto, nil)
		if err != nil {
			t.Fatalf("prompt: %v", err)
		}
		defer ls.undo()
		policy := func() uint32 { return schedAttr(t).Policy }
		if p := policy(); p != unix.SCHED_NORMAL || ls.fifo {
			t.Fatalf("at the start: policy %d, want the fair policy", p)
		}
		if a := schedAttr(t); a.Runtime != uint64(shortSlice) && a.Runtime != 0 {
			t.Errorf("slice %d ns, want the shortest", a.Runtime)
		}
		if CheckRealtime() != nil {
			ls.weigh(Now()+adaptEvery, 200, 100)
			if p := policy(); p != unix.SCHED_NORMAL || ls.auto {
				t.Errorf("policy %d auto %v where real-time is not allowed; want the fair policy", p, ls.auto)
			}
			t.Skip("real-time threads not allowed here")
		}
		// The weighs' clocks are made up; the thread's CPU time is real,
		// next to none over the made-up spans unless set otherwise.
		now := Now()
		step := func(d time.Duration, wakes, far int) {
			now += d
			ls.weigh(now, wakes, far)
		}
		want := func(what string, fifo bool) {
			t.Helper()
			p := policy()
			if fifo != (p == unix.SCHED_FIFO) || fifo != ls.fifo {
				t.Fatalf("%s: policy %d, real-time %v", what, p, ls.fifo)
			}
		}
		step(adaptEvery, 50, 10)
		want("10 of 50 late, a span not yet whole", false)
		step(adaptEvery, 150, 0)
		want("10 of 200 late, the span whole", true)
		step(stintLeast/2, 200, 0)
		want("within the stint", true)
		step(stintLeast, 200, 0)
		want("after the stint", false)
		if !ls.probe {
			t.Fatal("after the stint: not trying the fair scheduler")
		}
		step(adaptEvery, 200, 30) // the try was late: back for longer
		want("a late try", true)
		if ls.stint != 2*stintLeast {
			t.Fatalf("after a late try: stint %v, want %v", ls.stint, 2*stintLeast)
		}
		step(2*stintLeast, 200, 0)
		step(adaptEvery, 200, 0) // a try on time ends it
		want("a try on time", false)
		if ls.probe {
			t.Fatal("after a try on time: still trying")
		}
		step(adaptEvery, 200, 2)
		want("2 of 200 late: under lateLeast", false)
		step(adaptEvery, 2000, 20)
		want("20 of 2000 late: under lateMore", false)
		step(spanMost, 20, 3)
		want("3 of 20 late over spanMost", true)
		if ls.stint != stintLeast {
			t.Errorf("late again after a try on time: stint %v, want %v", ls.stint, stintLeast)
		}
		// 0.9 ms of CPU in 1 ms of wall time, weigh after weigh: too
		// heavy to stay.
		for range 2 * dutyWeighs {
			ls.cpu, ls.at = threadCPU()-900*time.Microsecond, now-time.Millisecond
			ls.weigh(now, 200, 0)
		}
		want("after 90% of a CPU", false)
		step(fairHold/2, 200, 30)
		want("late within fairHold", false)
		step(fairHold, 200, 30)
		want("late and light after fairHold", true)
		ls.undo()
		if after := schedAttr(t); after.Policy != before.Policy || after.Priority != before.Priority || after.Nice != before.Nice {
			t.Errorf("after undo: %+v, want %+v", *after, *before)
		}
	})
}

// TestPromptAutoCarries holds that a phase begins where the loop's last
// one left it: real-time after a warm-up that ended real-time.
func TestPromptAutoCarries(t *testing.T) {
	if err := CheckRealtime(); err != nil {
		t.Skipf("real-time threads not allowed here: %v", err)
	}
	onThread(func() {
		ls, err := prompt(RealtimeAuto, nil)
		if err != nil {
			t.Fatalf("prompt: %v", err)
		}
		now := Now()
		ls.weigh(now+adaptEvery, 200, 30)
		if !ls.fifo {
			t.Fatal("not real-time after a late span")
		}
		last := ls.undo()
		if p := schedAttr(t).Policy; p == unix.SCHED_FIFO {
			t.Fatal("real-time after undo")
		}
		next, err := prompt(RealtimeAuto, last)
		if err != nil {
			t.Fatalf("prompt: %v", err)
		}
		defer next.undo()
		if p := schedAttr(t).Policy; p != unix.SCHED_FIFO || !next.fifo || next.until != last.until {
			t.Errorf("the next phase: policy %d, until %v; want SCHED_FIFO until %v", p, next.until, last.until)
		}
	})
}

// TestAttackRealtime runs an open loop on real-time loops, asked for and
// by default (a light loop made late: every tenth request's build takes
// 1.2 ms, so the next one is due before the loop is back): the same
// schedule, every request answered, and the process's threads back on the
// fair scheduler after.
func TestAttackRealtime(t *testing.T) {
	if err := CheckRealtime(); err != nil {
		t.Skipf("real-time threads not allowed here: %v", err)
	}
	for _, mode := range []Realtime{RealtimeOn, RealtimeAuto} {
		t.Run(mode.String(), func(t *testing.T) {
			withProcs(t, 2)
			srv := newCountingServer(t, 0)
			if mode == RealtimeAuto {
				testHookBuild = func(seq int64, _ int) {
					if seq%10 == 9 {
						time.Sleep(1200 * time.Microsecond)
					}
				}
				defer func() { testHookBuild = nil }()
			}
			// The loop says when its thread goes real-time: a look at the
			// threads from another goroutine can miss a short stint on a
			// busy machine, where that goroutine waits for a CPU.
			var went atomic.Bool
			testHookFIFO = func() { went.Store(true) }
			defer func() { testHookFIFO = nil }()
			res := attack(t, context.Background(), Config{
				Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 1000}}, Count: 300, Realtime: mode,
			})
			if !went.Load() {
				t.Error("no thread ran SCHED_FIFO while the load ran")
			}
			if res.Requests != 300 || res.Successes() != 300 {
				t.Errorf("%d requests, %d answered; want 300 and 300", res.Requests, res.Successes())
			}
			tasks, err := threadPolicies()
			if err != nil {
				t.Fatal(err)
			}
			for tid, p := range tasks {
				if p == unix.SCHED_FIFO {
					t.Errorf("thread %d still runs SCHED_FIFO after the attack", tid)
				}
			}
		})
	}
}

// threadPolicies returns the scheduling policy of each of the process's
// threads, by thread id.
func threadPolicies() (map[int]uint32, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	out := map[int]uint32{}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		if a, err := unix.SchedGetAttr(tid, 0); err == nil {
			out[tid] = a.Policy
		}
	}
	return out, nil
}
