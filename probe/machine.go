package probe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Machine samples how busy the whole machine is, from /proc, every
// Interval: what competes with latlab and its targets for the CPUs. Each
// sample yields, with Probe "machine" and no labels:
//   - "load1": the 1-minute load average (/proc/loadavg);
//   - "cpus": how many CPUs /proc/stat counts;
//   - "busy_percent": the CPU time spent running anything (user, nice,
//     system, irq, softirq) since the previous sample, in percent of all
//     the CPUs' time (100 = every CPU busy);
//   - "other_cpu_percent": busy_percent less the CPU time of latlab's own
//     process and of PIDs and their descendants: other work on the
//     machine, in the same unit;
//   - "steal_percent": the CPU time a hypervisor gave to other guests, in
//     the same unit.
//
// The percentages compare with the previous sample, so the first sample
// has only load1 and cpus. Do not change the fields after the first Run
// or Sample.
type Machine struct {
	// PIDs are latlab's targets: their CPU time, and their descendants',
	// is not other work.
	PIDs []int
	// Interval between samples; zero means 1s.
	Interval time.Duration

	mu   sync.Mutex // serializes Sample; guards last
	last *machineMark
}

// machineMark is the machine's CPU time when it was last sampled, in
// 1/userHZ s, and that of latlab and its targets by pid.
type machineMark struct {
	cpu  cpuTimes
	own  map[int]procStat
	cpus int
}

// cpuTimes is the first line of /proc/stat, summed into what Machine needs.
type cpuTimes struct {
	busy, steal, total uint64
}

// Run samples at once, then every Interval, and once more when ctx ends,
// so that a run shorter than Interval still gets its percentages. It hands
// each sample's points to emit and returns nil.
func (m *Machine) Run(ctx context.Context, start time.Time, emit func([]Point)) error {
	sampleEvery(ctx, orDefault(m.Interval, time.Second), start, true, m.Sample, emit)
	return nil
}

// Sample reads /proc once and returns the machine's points at offset at;
// none when /proc/stat cannot be read.
func (m *Machine) Sample(at time.Duration) []Point {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	cpu, cpus, err := parseProcStat(string(b))
	if err != nil {
		return nil
	}
	now := &machineMark{cpu: cpu, cpus: cpus, own: map[int]procStat{}}
	own := append([]int{os.Getpid()}, m.PIDs...)
	for _, kids := range descendants(m.PIDs) {
		own = append(own, kids...)
	}
	for _, pid := range own {
		if st, err := readStat(pid); err == nil {
			now.own[pid] = st
		}
	}
	point := func(series string, v float64) Point {
		return Point{Probe: "machine", Series: series, T: at, Value: v}
	}
	points := []Point{point("cpus", float64(cpus))}
	if load1, err := readLoad1(); err == nil {
		points = append(points, point("load1", load1))
	}
	if prev := m.last; prev != nil && cpu.total > prev.cpu.total {
		total := float64(cpu.total - prev.cpu.total)
		busy := float64(cpu.busy - min(cpu.busy, prev.cpu.busy))
		var own uint64
		for pid, st := range now.own {
			if p, ok := prev.own[pid]; ok && p.starttime == st.starttime && st.ticks >= p.ticks {
				own += st.ticks - p.ticks
			}
		}
		other := max(0, busy-float64(own))
		points = append(points,
			point("busy_percent", 100*busy/total),
			point("other_cpu_percent", 100*other/total),
			point("steal_percent", 100*float64(cpu.steal-min(cpu.steal, prev.cpu.steal))/total))
	}
	m.last = now
	return points
}

// parseProcStat reads the contents of /proc/stat: the CPU times of its
// first line, and how many cpuN lines follow.
func parseProcStat(s string) (cpuTimes, int, error) {
	var t cpuTimes
	cpus := 0
	seen := false
	for line := range strings.SplitSeq(s, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "cpu") {
			continue
		}
		if fields[0] != "cpu" {
			cpus++
			continue
		}
		// cpu user nice system idle iowait irq softirq steal [guest
		// guest_nice]: guest time is counted in user already.
		if len(fields) < 9 {
			return t, 0, fmt.Errorf("/proc/stat: %d fields on the cpu line, want at least 8", len(fields)-1)
		}
		var v [8]uint64
		for i := range v {
			n, err := strconv.ParseUint(fields[i+1], 10, 64)
			if err != nil {
				return t, 0, fmt.Errorf("/proc/stat: cpu field %d: %w", i+1, err)
			}
			v[i] = n
		}
		t.busy = v[0] + v[1] + v[2] + v[5] + v[6]
		t.steal = v[7]
		t.total = t.busy + v[3] + v[4] + v[7]
		seen = true
	}
	if !seen {
		return t, 0, errors.New("/proc/stat: no cpu line")
	}
	return t, cpus, nil
}

// readLoad1 returns the 1-minute load average.
func readLoad1() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("/proc/loadavg: empty")
	}
	return strconv.ParseFloat(f[0], 64)
}
