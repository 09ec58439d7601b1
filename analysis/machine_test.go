package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/store"
)

// TestSummarizeMachine sums up the machine probe over made-up runs: the
// highest load average, the mean shares of other processes and of other
// virtual machines over every point, runs without machine points not
// counted, NaN and other probes left out; and judges the machine busy
// at each limit.
func TestSummarizeMachine(t *testing.T) {
	at := time.Unix(0, 0)
	machine := func(series string, v float64) store.ProbePoint {
		return store.ProbePoint{Probe: "machine", Series: series, Time: at, Value: v}
	}
	runs := map[int64][]store.ProbePoint{
		1: {machine("cpus", 2), machine("load1", 1.5), machine("load1", 0.5), machine("other_cpu_percent", 10),
			machine("other_cpu_percent", 20), machine("steal_percent", 1)},
		2: {machine("cpus", 2), machine("load1", 1.9), machine("other_cpu_percent", 30), machine("other_cpu_percent", math.NaN()),
			machine("steal_percent", 3), machine("steal_percent", 2)},
		3: {{Probe: "process", Series: "load1", Value: 99}, machine("load1", math.NaN())}, // no machine measurement
	}
	got := SummarizeMachine(runs)
	want := MachineLoad{Runs: 2, Load1: 1.9, CPUs: 2, Other: 20, Steal: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := SummarizeMachine(nil); got != (MachineLoad{}) {
		t.Errorf("no runs: %+v; want zero", got)
	}
	for _, tt := range []struct {
		name   string
		points []store.ProbePoint
		busy   bool
	}{
		{"other processes at the limit", []store.ProbePoint{machine("other_cpu_percent", 25)}, true},
		{"other processes under it", []store.ProbePoint{machine("other_cpu_percent", 24.9)}, false},
		{"other guests at the limit", []store.ProbePoint{machine("steal_percent", 10)}, true},
		{"other guests under it", []store.ProbePoint{machine("steal_percent", 9.9)}, false},
		{"load above the CPUs", []store.ProbePoint{machine("cpus", 2), machine("load1", 2.1)}, true},
		{"load at the CPUs", []store.ProbePoint{machine("cpus", 2), machine("load1", 2)}, false},
		{"load without a CPU count", []store.ProbePoint{machine("load1", 50)}, false},
		// The load average counts the target and latlab: with other
		// processes measured quiet, a target keeping the CPUs busy is no
		// busy machine.
		{"load from the target itself", []store.ProbePoint{machine("cpus", 2), machine("load1", 4.9), machine("other_cpu_percent", 1)}, false},
		{"load and other processes", []store.ProbePoint{machine("cpus", 2), machine("load1", 4.9), machine("other_cpu_percent", 30)}, true},
	} {
		if got := SummarizeMachine(map[int64][]store.ProbePoint{1: tt.points}); got.Busy != tt.busy {
			t.Errorf("%s: %+v; want busy %v", tt.name, got, tt.busy)
		}
	}
}
