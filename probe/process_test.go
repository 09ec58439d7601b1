package probe

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// values returns the values of series among points, by pid label.
func values(points []Point, series string) map[string]float64 {
	m := map[string]float64{}
	for _, p := range points {
		if p.Series == series {
			m[p.Labels["pid"]] = p.Value
		}
	}
	return m
}

// startSleep starts `sleep 5`, killed and reaped when the test ends.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skipf("starting sleep: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestProcessSelfBusy(t *testing.T) {
	var stop atomic.Bool
	done := make(chan struct{})
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			for n := 0; !stop.Load(); n++ {
			}
		}()
	}
	defer func() {
		stop.Store(true)
		<-done
		<-done
	}()
	// The probe reads the process's CPU time from /proc between its two
	// samples; getrusage brackets each sample, so whatever share of the
	// machine the goroutines got, the probe's figure lies between what the
	// kernel counted over the inner and the outer span, give or take a
	// clock tick (10 ms) at each end of /proc's coarser count. A busy
	// machine may leave the goroutines no tick in one span: sample until
	// the probe sees their spinning.
	p := &Process{Self: true}
	self := strconv.Itoa(os.Getpid())
	const tick = 10 * time.Millisecond
	t0, r0 := time.Now(), cpuTime(t)
	p.Sample(0)
	t1, r1 := time.Now(), cpuTime(t)
	var points []Point
	for deadline := time.Now().Add(time.Minute); ; {
		time.Sleep(200 * time.Millisecond)
		t2, r2 := time.Now(), cpuTime(t)
		points = p.Sample(t2.Sub(t0))
		t3, r3 := time.Now(), cpuTime(t)
		lo := 100 * (r2 - r1 - 2*tick).Seconds() / t3.Sub(t0).Seconds()
		hi := 100 * (r3 - r0 + 2*tick).Seconds() / t2.Sub(t1).Seconds()
		got, ok := values(points, "cpu_percent")[self]
		if !ok || got < lo || got > hi {
			t.Fatalf("cpu_percent of a process spinning two goroutines = %v (present %v), want in [%.3g, %.3g] (getrusage)", got, ok, lo, hi)
		}
		if got > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("cpu_percent of a process spinning two goroutines still 0 after a minute")
		}
		t0, r0, t1, r1 = t2, r2, t3, r3
	}
	cpus := values(points, "cpus_allowed")[self]
	if cpus < 1 {
		t.Errorf("cpus_allowed = %v, want ≥ 1", cpus)
	}
	if got, want := values(points, "cpu_allowed_percent")[self], values(points, "cpu_percent")[self]/cpus; !near(got, want) {
		t.Errorf("cpu_allowed_percent = %v, want cpu_percent/cpus_allowed = %v", got, want)
	}
	for _, pt := range points {
		if pt.Labels["role"] != "latlab" || pt.Probe != "process" {
			t.Errorf("point %+v: want probe process, role latlab", pt)
		}
	}
}

func TestProcessSleepingChild(t *testing.T) {
	cmd := startSleep(t)
	pid := strconv.Itoa(cmd.Process.Pid)
	p := &Process{PIDs: []int{cmd.Process.Pid}}
	first := p.Sample(0)
	if _, ok := values(first, "cpu_percent")[pid]; ok {
		t.Error("cpu_percent on the first sample, with nothing to compare with")
	}
	time.Sleep(300 * time.Millisecond)
	points := p.Sample(300 * time.Millisecond)
	if got := values(points, "up")[pid]; got != 1 {
		t.Fatalf("up = %v, want 1; points %v", got, points)
	}
	if got, ok := values(points, "cpu_percent")[pid]; !ok || got > 5 {
		t.Errorf("cpu_percent of sleep = %v (present %v), want near 0", got, ok)
	}
	if got := values(points, "rss_bytes")[pid]; got <= 0 {
		t.Errorf("rss_bytes = %v, want > 0", got)
	}
	if comm := points[0].Labels["comm"]; comm != "sleep" {
		t.Errorf("comm = %q, want sleep", comm)
	}
}

func TestProcessExits(t *testing.T) {
	cmd := startSleep(t)
	pid := strconv.Itoa(cmd.Process.Pid)
	p := &Process{PIDs: []int{cmd.Process.Pid}}
	if got := values(p.Sample(0), "up")[pid]; got != 1 {
		t.Fatalf("up = %v before the kill, want 1", got)
	}
	cmd.Process.Kill()
	cmd.Wait()
	points := p.Sample(time.Second)
	if len(points) != 1 || points[0].Series != "up" || points[0].Value != 0 {
		t.Fatalf("after exit: %v, want a single up=0", points)
	}
	if l := points[0].Labels; !strings.Contains(l["error"], "gone") || l["comm"] != "sleep" {
		t.Errorf("labels %v, want an error saying it is gone and comm kept", l)
	}
}

func TestProcessZombie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skipf("starting true: %v", err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err := readStat(pid)
		if err == nil && st.state == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("true did not become a zombie: %+v, %v", st, err)
		}
	}
	points := (&Process{PIDs: []int{pid}}).Sample(0)
	if len(points) != 1 || points[0].Value != 0 || !strings.Contains(points[0].Labels["error"], "exited") {
		t.Errorf("zombie: %v, want up=0 with an error saying it exited", points)
	}
}

// TestProcessRunExitMidProbe kills the watched process while Run goes on:
// the points turn to up=0 and Run carries on until cancelled.
func TestProcessRunExitMidProbe(t *testing.T) {
	cmd := startSleep(t)
	pid := strconv.Itoa(cmd.Process.Pid)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p := &Process{PIDs: []int{cmd.Process.Pid}, Self: true, Interval: 10 * time.Millisecond}
	var ups []float64
	err := p.Run(ctx, time.Now(), func(points []Point) {
		ups = append(ups, values(points, "up")[pid])
		if len(ups) == 2 {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if values(points, "up")[strconv.Itoa(os.Getpid())] != 1 {
			t.Errorf("latlab itself not up: %v", points)
		}
		if len(ups) == 4 {
			cancel()
		}
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := []float64{1, 1, 0, 0}; !slices.Equal(ups, want) {
		t.Errorf("up over time = %v, want %v", ups, want)
	}
}

func TestProcessValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    *Process
		ok   bool
	}{
		{"self", &Process{Self: true}, true},
		{"pids", &Process{PIDs: []int{1}}, true},
		{"nothing", &Process{}, false},
		{"bad pid", &Process{PIDs: []int{0}}, false},
		{"negative interval", &Process{Self: true, Interval: -1}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.p.Validate(); (err == nil) != tt.ok {
				t.Errorf("Validate() = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestFindPIDs(t *testing.T) {
	cmd := startSleep(t)
	pids, err := FindPIDs("sleep")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pids, cmd.Process.Pid) {
		t.Errorf("FindPIDs(sleep) = %v, want it to contain %d", pids, cmd.Process.Pid)
	}
	if pids, err := FindPIDs("no-such-program-latlab"); err != nil || len(pids) != 0 {
		t.Errorf("FindPIDs of nothing = %v, %v; want none", pids, err)
	}
	if _, err := FindPIDs(""); err == nil {
		t.Error("FindPIDs(\"\") accepted an empty name")
	}
}

// A zombie, a process that ended but was not waited for, has nothing to
// measure: FindPIDs leaves it out.
func TestFindPIDsSkipsZombies(t *testing.T) {
	cmd := exec.Command("sleep", "0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, err := readStat(pid); err == nil && st.state == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep 0 never ended")
		}
	}
	pids, err := FindPIDs("sleep")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(pids, pid) {
		t.Errorf("FindPIDs(sleep) = %v: has the zombie %d", pids, pid)
	}
}

// GroupLive sees a group's running process, and not a zombie left in it.
func TestGroupLive(t *testing.T) {
	sleeper := func(d string) *exec.Cmd {
		cmd := exec.Command("sleep", d)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	running := sleeper("30")
	defer running.Wait()
	defer running.Process.Kill()
	if !GroupLive(running.Process.Pid) {
		t.Error("GroupLive of a running sleep's group = false")
	}
	ended := sleeper("0")
	defer ended.Wait()
	pid := ended.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, err := readStat(pid); err == nil && st.state == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep 0 never ended")
		}
	}
	if GroupLive(pid) {
		t.Error("GroupLive of a group with only a zombie = true")
	}
	if GroupLive(1 << 22) {
		t.Error("GroupLive of no group = true")
	}
}

func TestParseStat(t *testing.T) {
	tail := " 1 7 1 0 -1 4194304 100 0 0 0 7 3 0 0 20 0 1 0 4242 1000 100"
	tests := []struct {
		name, in string
		want     procStat
		ok       bool
	}{
		{"plain", "12 (sleep) S" + tail, procStat{comm: "sleep", state: 'S', ppid: 1, pgrp: 7, ticks: 10, starttime: 4242}, true},
		{"parens and spaces in comm", "12 (a) b (c) R" + tail, procStat{comm: "a) b (c", state: 'R', ppid: 1, pgrp: 7, ticks: 10, starttime: 4242}, true},
		{"truncated", "12 (sleep) S 1 1 1", procStat{}, false},
		{"no comm", "12 sleep S" + tail, procStat{}, false},
		{"bad number", "12 (sleep) S" + strings.Replace(tail, " 7 ", " x ", 1), procStat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.in))
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseStat = %+v, %v; want %+v, ok %v", got, err, tt.want, tt.ok)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("12 (a) b (c) R 1 1 1 0 -1 4194304 100 0 0 0 7 3 0 0 20 0 1 0 4242 1000 100"))
	f.Add([]byte("1 ()) Z"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseStat(b)
		if err != nil {
			return
		}
		if !strings.Contains(string(b), "("+st.comm+")") {
			t.Errorf("comm %q is not between parentheses in %q", st.comm, b)
		}
	})
}

// TestProcessTree watches a shell that idles while its child burns a CPU,
// as nginx's master idles while its worker serves, or stress-ng's parent
// while its worker spins: the child is sampled too, named by its root,
// and its CPU shows; the root's is its own, not the tree's.
func TestProcessTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("starting sh: %v", err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	root := cmd.Process.Pid
	p := &Process{PIDs: []int{root}}
	var child string
	for deadline := time.Now().Add(30 * time.Second); child == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the child never showed in 30 s")
		}
		for _, pt := range p.Sample(0) {
			if pt.Labels["root"] == strconv.Itoa(root) && pt.Series == "up" {
				child = pt.Labels["pid"]
			}
		}
	}
	// /proc counts each process's CPU time in ticks; read just outside the
	// probe's two samples, a process's count brackets what the probe saw,
	// so whatever share of the machine the child gets, its cpu_percent
	// lies between its ticks over the inner span and over the outer one,
	// and the root's, which only waits, stays its own and not the tree's.
	// A busy machine may give the spinning child no tick in one span:
	// sample until the probe sees some.
	childPID, err := strconv.Atoi(child)
	if err != nil {
		t.Fatalf("child pid %q: %v", child, err)
	}
	pids := []int{root, childPID}
	ticks := func() []uint64 {
		var out []uint64
		for _, pid := range pids {
			st, err := readStat(pid)
			if err != nil {
				t.Fatalf("reading process %d: %v", pid, err)
			}
			out = append(out, st.ticks)
		}
		return out
	}
	t0, c0 := time.Now(), ticks()
	p.Sample(0)
	t1, c1 := time.Now(), ticks()
	var points []Point
	for deadline := time.Now().Add(time.Minute); ; {
		time.Sleep(200 * time.Millisecond)
		t2, c2 := time.Now(), ticks()
		points = p.Sample(t2.Sub(t0))
		t3, c3 := time.Now(), ticks()
		cpu := values(points, "cpu_percent")
		for i, pid := range pids {
			lo := 100 * float64(c2[i]-c1[i]) / userHZ / t3.Sub(t0).Seconds()
			hi := 100 * float64(c3[i]-c0[i]) / userHZ / t2.Sub(t1).Seconds()
			if got, ok := cpu[strconv.Itoa(pid)]; !ok || got < lo*(1-1e-9) || got > hi*(1+1e-9) {
				t.Fatalf("process %d: cpu_percent %v (present %v); want in [%.3g, %.3g], its ticks in /proc", pid, got, ok, lo, hi)
			}
		}
		if cpu[child] > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %s: cpu_percent still 0 after a minute; want its spinning seen", child)
		}
		t0, c0, t1, c1 = t2, c2, t3, c3
	}
	for _, pt := range points {
		if pt.Labels["pid"] == child && pt.Labels["role"] != "target" {
			t.Errorf("child point %+v: role %q, want target", pt, pt.Labels["role"])
		}
		if pt.Series == "up" && pt.Value != 1 {
			t.Errorf("up point %+v: want every process of the tree up", pt)
		}
	}
}

// TestProcessListedInTree lists a shell and, beside it, the child it
// started, as a spec names a server beside the script that starts it:
// the child is still part of the shell's tree (root is the shell), so
// that a CPU budget judges the two together, it is sampled once, and
// the shell's name (Names) is its name too.
func TestProcessListedInTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("starting sh: %v", err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	root := cmd.Process.Pid
	var child int
	for deadline := time.Now().Add(30 * time.Second); child == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the child never showed in 30 s")
		}
		if kids := descendants([]int{root})[root]; len(kids) > 0 {
			child = kids[0]
		}
	}
	p := &Process{PIDs: []int{child, root}, Names: map[int]string{root: "svc"}}
	ups := map[string]int{}
	for _, pt := range p.Sample(0) {
		if got := pt.Labels["name"]; got != "svc" {
			t.Errorf("pid %s: name %q, want its root's, svc", pt.Labels["pid"], got)
		}
		if pt.Series != "up" {
			continue
		}
		ups[pt.Labels["pid"]]++
		switch pt.Labels["pid"] {
		case strconv.Itoa(child):
			if got := pt.Labels["root"]; got != strconv.Itoa(root) {
				t.Errorf("the listed child: root %q, want the shell's pid %d", got, root)
			}
		case strconv.Itoa(root):
			if got, ok := pt.Labels["root"]; ok {
				t.Errorf("the shell: root %q, want none", got)
			}
		}
	}
	if ups[strconv.Itoa(child)] != 1 || ups[strconv.Itoa(root)] != 1 {
		t.Errorf("up points by pid %v: want one each for %d and %d", ups, root, child)
	}
}
