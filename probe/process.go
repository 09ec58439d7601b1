package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Process samples the CPU use and resident memory of processes from /proc,
// every Interval: each of PIDs with every process descended from it, found
// anew at each sample (nginx's workers under its master, stress-ng's under
// its own, a shell's command), and latlab itself. For each process it
// yields, with Probe "process" and Labels pid, comm and role ("target", or
// "latlab" for latlab itself), and for a descendant also root, the pid of
// the outermost of PIDs it descends from (one of PIDs under another of
// them, a server named beside the script that started it, has it too),
// and name when Names names it or that root:
//   - "up": 1, or 0 with Labels["error"] once the process is gone (a
//     zombie counts as gone);
//   - "rss_bytes": resident set size (VmRSS);
//   - "cpus_allowed": how many CPUs its affinity mask lets it run on;
//   - "cpu_percent": utime+stime over the wall time since the previous
//     sample, in percent of one core (200 = two cores busy); not on the
//     first sample of a process, which has nothing to compare with;
//   - "cpu_allowed_percent": the same as a share of the CPUs it may use
//     (100 = all of them busy), the number a CPU budget is checked against.
//
// The zero value needs PIDs or Self; do not change the fields after the
// first Run or Sample.
type Process struct {
	// PIDs are the processes to watch, each with its descendants.
	PIDs []int
	// Names, when set, names some of PIDs by what they are (a graph
	// node's service, a variant): label "name" on their points and on
	// their descendants'.
	Names map[int]string
	// Self adds latlab's own process.
	Self bool
	// Interval between samples; zero means 1s.
	Interval time.Duration

	mu   sync.Mutex // serializes Sample; guards last
	last map[int]cpuMark
}

// cpuMark is a process's CPU time when it was last sampled.
type cpuMark struct {
	ticks, starttime uint64
	at               time.Time
	comm             string
}

// Validate reports what is wrong with the configuration.
func (p *Process) Validate() error {
	if len(p.PIDs) == 0 && !p.Self {
		return errors.New("process probe: no PIDs and not Self")
	}
	for _, pid := range p.PIDs {
		if pid <= 0 {
			return fmt.Errorf("process probe: PIDs: %d is not a process id", pid)
		}
	}
	if p.Interval < 0 {
		return errors.New("process probe: Interval must not be negative")
	}
	return nil
}

// Run samples at once and then every Interval until ctx ends, handing each
// sample's points to emit from the goroutine that called Run. T is measured
// from start. Run returns an error only for a bad configuration.
func (p *Process) Run(ctx context.Context, start time.Time, emit func([]Point)) error {
	if err := p.Validate(); err != nil {
		return err
	}
	sampleEvery(ctx, orDefault(p.Interval, time.Second), start, false, p.Sample, emit)
	return nil
}

// Sample reads every process once and returns its points at offset at. CPU
// percentages compare with the previous Sample, on the wall clock.
func (p *Process) Sample(at time.Duration) []Point {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[int]cpuMark{}
	}
	type proc struct {
		pid, root int
		role      string
	}
	var procs []proc
	self := os.Getpid()
	if p.Self {
		procs = append(procs, proc{self, 0, "latlab"})
	}
	var roots []int
	for _, pid := range p.PIDs {
		if !p.Self || pid != self {
			procs = append(procs, proc{pid, 0, "target"})
			roots = append(roots, pid)
		}
	}
	seen := map[int]bool{}
	for _, pr := range procs {
		seen[pr.pid] = true
	}
	tree := descendants(roots)
	// A listed process that descends from another listed one (a server
	// named beside the script that started it) is part of that one's
	// tree: a target is the outermost process listed, with all under it.
	outer := map[int]int{}
	for _, r := range roots {
		for _, pid := range tree[r] {
			if slices.Contains(roots, pid) {
				outer[pid] = r
			}
		}
	}
	outermost := func(pid int) int {
		r := 0
		for o, ok := outer[pid]; ok && o != r; o, ok = outer[o] {
			r = o
		}
		return r
	}
	for i := range procs {
		if procs[i].role == "target" {
			procs[i].root = outermost(procs[i].pid)
		}
	}
	for _, root := range roots {
		if outer[root] != 0 {
			continue // its processes are its outermost root's
		}
		for _, pid := range tree[root] {
			if !seen[pid] {
				seen[pid] = true
				procs = append(procs, proc{pid, root, "target"})
			}
		}
	}
	var points []Point
	for _, pr := range procs {
		points = p.sampleOne(points, pr.pid, pr.root, pr.role, at)
	}
	// A descendant gone since the last sample is forgotten without an up
	// point: a child that ends is no failure of the target.
	for pid := range p.last {
		if !seen[pid] {
			delete(p.last, pid)
		}
	}
	return points
}

func (p *Process) sampleOne(points []Point, pid, root int, role string, at time.Duration) []Point {
	labels := map[string]string{"pid": strconv.Itoa(pid), "role": role}
	if root > 0 {
		labels["root"] = strconv.Itoa(root)
	}
	if name := p.Names[cmp.Or(root, pid)]; name != "" {
		labels["name"] = name
	}
	point := func(series string, v float64) {
		points = append(points, Point{Probe: "process", Series: series, Labels: labels, T: at, Value: v})
	}
	now := time.Now()
	st, err := readStat(pid)
	var rss int64
	if err == nil {
		rss, err = readRSS(pid)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("process %d is gone", pid)
	case err != nil:
		err = fmt.Errorf("process %d: %w", pid, err)
	case st.state == 'Z' || st.state == 'X':
		err = fmt.Errorf("process %d has exited (state %c)", pid, st.state)
	}
	if err != nil && root > 0 {
		// A descendant ended between the look for it and now.
		delete(p.last, pid)
		return points
	}
	if err != nil {
		if prev, ok := p.last[pid]; ok {
			labels["comm"] = prev.comm
		}
		labels["error"] = err.Error()
		delete(p.last, pid)
		point("up", 0)
		return points
	}
	labels["comm"] = st.comm
	cpus := allowedCPUs(pid)
	point("up", 1)
	point("rss_bytes", float64(rss))
	point("cpus_allowed", float64(cpus))
	// A different start time means the PID was reused: a new process.
	if prev, ok := p.last[pid]; ok && prev.starttime == st.starttime && st.ticks >= prev.ticks && now.After(prev.at) {
		percent := float64(st.ticks-prev.ticks) / userHZ / now.Sub(prev.at).Seconds() * 100
		point("cpu_percent", percent)
		point("cpu_allowed_percent", percent/float64(cpus))
	}
	p.last[pid] = cpuMark{ticks: st.ticks, starttime: st.starttime, at: now, comm: st.comm}
	return points
}

// allowedCPUs counts the CPUs pid may run on (sched_getaffinity), or all of
// them if the mask cannot be read.
func allowedCPUs(pid int) int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err == nil {
		if n := set.Count(); n > 0 {
			return n
		}
	}
	return runtime.NumCPU()
}
