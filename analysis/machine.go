package analysis

import (
	"maps"
	"math"
	"slices"

	"github.com/latlab/latlab/store"
)

// Machine loads above which the machine counts as busy while it measured.
const (
	busyOtherPercent = 25 // other processes' share of all the CPUs' time
	busyStealPercent = 10 // a hypervisor's other guests' share
)

// A MachineLoad is what the machine probe measured over some runs.
type MachineLoad struct {
	Runs  int     // runs with machine points
	Load1 float64 // the highest 1-minute load average
	CPUs  float64 // CPUs of the machine
	Other float64 // mean of other_cpu_percent; 0 when not measured
	Steal float64 // mean of steal_percent; 0 when not measured
	// Busy says the machine was too busy to measure well: other
	// processes took 25% of the CPUs' time or more, or other virtual
	// machines 10% or more. Where other processes' share was not
	// measured, a load average above the CPUs counts instead; where it
	// was, the load average does not, since it counts the target and
	// latlab too, and a target that keeps the CPUs busy is what it
	// measures, not other work.
	Busy bool
}

// SummarizeMachine sums up the machine probe's points of runs (each
// run's by its ID), in the order of their IDs. Points that are NaN are
// left out.
func SummarizeMachine(runs map[int64][]store.ProbePoint) MachineLoad {
	var m MachineLoad
	var otherN, stealN int
	for _, id := range slices.Sorted(maps.Keys(runs)) {
		seen := false
		for _, p := range runs[id] {
			if p.Probe != "machine" || math.IsNaN(p.Value) {
				continue
			}
			seen = true
			switch p.Series {
			case "load1":
				m.Load1 = max(m.Load1, p.Value)
			case "cpus":
				m.CPUs = p.Value
			case "other_cpu_percent":
				m.Other += p.Value
				otherN++
			case "steal_percent":
				m.Steal += p.Value
				stealN++
			}
		}
		if seen {
			m.Runs++
		}
	}
	if otherN > 0 {
		m.Other /= float64(otherN)
	}
	if stealN > 0 {
		m.Steal /= float64(stealN)
	}
	m.Busy = otherN > 0 && m.Other >= busyOtherPercent || stealN > 0 && m.Steal >= busyStealPercent ||
		otherN == 0 && m.CPUs > 0 && m.Load1 > m.CPUs
	return m
}
