package probe

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestParseProcStat(t *testing.T) {
	const stat = "cpu  100 5 40 800 10 3 2 50 7 0\ncpu0 50 2 20 400 5 1 1 25 3 0\ncpu1 50 3 20 400 5 2 1 25 4 0\nintr 1 2 3\n"
	got, cpus, err := parseProcStat(stat)
	if err != nil {
		t.Fatal(err)
	}
	// busy: user+nice+system+irq+softirq; total adds idle, iowait and steal;
	// guest is in user already.
	if want := (cpuTimes{busy: 150, steal: 50, total: 1010}); got != want || cpus != 2 {
		t.Errorf("parseProcStat = %+v, %d CPUs; want %+v, 2", got, cpus, want)
	}
	for _, bad := range []string{"", "intr 1\n", "cpu 1 2 3\n", "cpu 1 2 3 x 5 6 7 8\n"} {
		if _, _, err := parseProcStat(bad); err == nil {
			t.Errorf("parseProcStat(%q): no error", bad)
		}
	}
}

// TestMachineSample checks the machine's points against /proc: bounded
// percentages, and this process's CPU time not counted as other work.
func TestMachineSample(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	m := &Machine{}
	first := m.Sample(0)
	if got := series(first); got["cpus"] < 1 || len(got) != 2 {
		t.Fatalf("first sample %v, want cpus and load1 only", first)
	}
	// Spin until this process has used 300 ms of CPU (bounded in time):
	// busy_percent must then exceed other_cpu_percent.
	cpuTime := func() time.Duration {
		var ru unix.Rusage
		_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	from, deadline := cpuTime(), time.Now().Add(10*time.Second)
	for x := 0; cpuTime()-from < 300*time.Millisecond && time.Now().Before(deadline); x++ {
		_ = x * x
	}
	got := series(m.Sample(time.Second))
	for _, s := range []string{"busy_percent", "other_cpu_percent", "steal_percent"} {
		if v, ok := got[s]; !ok || v < 0 || v > 100 {
			t.Errorf("%s = %g (present %v), want within [0, 100]", s, v, ok)
		}
	}
	if got["other_cpu_percent"] >= got["busy_percent"] {
		t.Errorf("other_cpu_percent %g not below busy_percent %g after this process spun", got["other_cpu_percent"], got["busy_percent"])
	}
}

func series(points []Point) map[string]float64 {
	out := map[string]float64{}
	for _, p := range points {
		if p.Probe != "machine" {
			continue
		}
		out[p.Series] = p.Value
	}
	return out
}
