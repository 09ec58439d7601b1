package load

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
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
		ls, err := prompt(RealtimeOff)
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
		ls, err := prompt(RealtimeOn)
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

// TestPromptAuto holds that a loop left to choose runs real-time where
// allowed, goes back to the fair scheduler once it used over a quarter of a CPU,
// stays there for fairHold, and comes back once light again.
func TestPromptAuto(t *testing.T) {
	onThread(func() {
		before := schedAttr(t)
		if before.Policy != unix.SCHED_NORMAL {
			t.Skipf("this thread runs policy %d, which prompt leaves alone", before.Policy)
		}
		ls, err := prompt(RealtimeAuto)
		if err != nil {
			t.Fatalf("prompt: %v", err)
		}
		defer ls.undo()
		if CheckRealtime() != nil {
			if a := schedAttr(t); a.Policy != unix.SCHED_NORMAL || ls.auto {
				t.Errorf("policy %d auto %v where real-time is not allowed; want the fair policy", a.Policy, ls.auto)
			}
			t.Skip("real-time threads not allowed here")
		}
		policy := func() uint32 { return schedAttr(t).Policy }
		if p := policy(); p != unix.SCHED_FIFO || !ls.fifo {
			t.Fatalf("policy %d, want SCHED_FIFO", p)
		}
		// The weighs' clocks are made up: 0.9 ms of CPU in 1 ms of wall
		// time, then next to none in a second.
		now := Now()
		ls.cpu, ls.at = threadCPU()-900*time.Microsecond, now-time.Millisecond
		ls.weigh(now)
		if p := policy(); p != unix.SCHED_NORMAL || ls.fifo {
			t.Fatalf("after 90%% of a CPU: policy %d, want the fair policy", p)
		}
		if a := schedAttr(t); a.Runtime != uint64(shortSlice) && a.Runtime != 0 {
			t.Errorf("slice %d ns, want the shortest", a.Runtime)
		}
		ls.weigh(now + fairHold/2)
		if p := policy(); p != unix.SCHED_NORMAL {
			t.Errorf("light again within fairHold: policy %d, want the fair policy still", p)
		}
		ls.weigh(now + 2*fairHold)
		if p := policy(); p != unix.SCHED_FIFO || !ls.fifo {
			t.Errorf("light after fairHold: policy %d, want SCHED_FIFO", p)
		}
		ls.undo()
		if after := schedAttr(t); after.Policy != before.Policy || after.Priority != before.Priority || after.Nice != before.Nice {
			t.Errorf("after undo: %+v, want %+v", *after, *before)
		}
	})
}

// TestAttackRealtime runs an open loop on real-time loops, asked for and
// by default (a light loop): the same schedule, every request answered,
// and the process's threads back on the fair scheduler after.
func TestAttackRealtime(t *testing.T) {
	if err := CheckRealtime(); err != nil {
		t.Skipf("real-time threads not allowed here: %v", err)
	}
	for _, mode := range []Realtime{RealtimeOn, RealtimeAuto} {
		t.Run(mode.String(), func(t *testing.T) {
			withProcs(t, 2)
			srv := newCountingServer(t, 0)
			// A look at the threads every few milliseconds while the load runs.
			stop, seen := make(chan struct{}), make(chan bool, 1)
			go func() {
				fifo := false
				for {
					select {
					case <-stop:
						seen <- fifo
						return
					case <-time.After(2 * time.Millisecond):
					}
					ps, _ := threadPolicies()
					for _, p := range ps {
						fifo = fifo || p == unix.SCHED_FIFO
					}
				}
			}()
			res := attack(t, context.Background(), Config{
				Source: staticTo(t, srv.URL), Model: Open{Pacer: Constant{Rate: 1000}}, Count: 300, Realtime: mode,
			})
			close(stop)
			if !<-seen {
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
