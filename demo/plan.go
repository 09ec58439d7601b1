package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/latlab/latlab/spec"
)

// trialOverhead is what a trial costs beyond its load on a small machine:
// the trace probe's wait for the nodes' last spans, checks and the commit.
const trialOverhead = 500 * time.Millisecond

// estimate is roughly how long the demo takes from the start: every
// trial's warm-up, load and overhead, and a second to start each graph.
func estimate(specs ...*spec.Spec) time.Duration {
	var d time.Duration
	for _, s := range specs {
		trials := len(s.Plan(1))
		per := s.Load.Duration + trialOverhead
		if s.Warmup != nil {
			per += s.Warmup.Duration
		}
		d += time.Duration(trials)*per + time.Duration(len(s.Variants))*time.Second
	}
	return d
}

// planText says in a few words what specs run: "46 trials".
func planText(specs ...*spec.Spec) string {
	n := 0
	for _, s := range specs {
		n += len(s.Plan(1))
	}
	return fmt.Sprintf("%d trials", n)
}

// describe says what spec runs, in one line.
func describe(s *spec.Spec) string {
	var names []string
	for _, v := range s.Variants {
		names = append(names, v.Name)
	}
	l := s.Load
	var b strings.Builder
	b.WriteString(strings.Join(names, ", "))
	switch l.Mode {
	case spec.Open:
		var rates []string
		for _, r := range l.Rates {
			rates = append(rates, fmt.Sprintf("%g", r))
		}
		fmt.Fprintf(&b, " at %s requests/s (open loop)", strings.Join(rates, ", "))
	case spec.Ramp:
		var tops []string
		for _, c := range l.Concurrency {
			tops = append(tops, fmt.Sprint(c))
		}
		fmt.Fprintf(&b, " in closed loop, %d more workers every %s up to %s", l.Ramp.Burst, l.Ramp.Every, strings.Join(tops, ", "))
	default:
		fmt.Fprintf(&b, " in %s mode", l.Mode)
	}
	fmt.Fprintf(&b, ", %s a run", l.Duration)
	if w := s.Warmup; w != nil {
		fmt.Fprintf(&b, " after %s of warm-up", w.Duration)
	}
	fmt.Fprintf(&b, ", %d run(s) of each", s.Runs)
	return b.String()
}
