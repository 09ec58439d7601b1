package spec

import (
	"net/http"
	"runtime"
	"time"

	"github.com/latlab/latlab/graph"
)

// The assumptions behind the time latlab run --dry-run gives a trial that
// ends at a request count, which the spec alone cannot fix: WritePlan
// states them beside the figure.
const (
	// hopCost is what one HTTP hop adds to a request on 127.0.0.1 beside
	// the work a script asks for: a latlab serve chain measured 27–30 µs a
	// hop one request at a time, rounded up for a busy machine.
	hopCost = 50 * time.Microsecond
	// cpuPerProcess is the CPU time one process on a request's path (the
	// load generator, each node) spends on it; with many workers in flight
	// it, not the latency, bounds the throughput.
	cpuPerProcess = 20 * time.Microsecond
	// trialOverhead is the time between two trials: storing the run,
	// reading probes, starting the next trial's load.
	trialOverhead = 250 * time.Millisecond
)

// estimateCPUs is how many CPUs the estimate shares among the processes of
// a closed loop; a variable so that tests can fix it.
var estimateCPUs = runtime.NumCPU

// requestTime estimates how long one request of a trial of v takes when it
// is alone: the fixed work on its path through v's graph (sleeps, busywork,
// a delay filter holding the load's user) plus hopCost a hop. It reports
// whether the graph's work is known: an external target's, or a route other
// than the script's (/busywork, a scenario), counts as one bare hop.
func requestTime(v *Variant) (d time.Duration, hops int, known bool) {
	t := v.Topology
	l := &v.Load
	if t == nil || t.Entry() == nil || l.Scenario != "" || l.Targets != "" || (l.Path != "" && l.Path != "/") {
		return hopCost, 1, false
	}
	user := func(header string) string {
		if header == "" {
			header = "X-Remote-User"
		}
		return l.Headers[http.CanonicalHeaderKey(header)]
	}
	hops = len(t.Services)
	return serviceTime(t, t.Entry(), user, 0), hops, true
}

// serviceTime is the expected time of a request to s: its hop, the delay
// filters that hold the request's user, and its script (or proxy target, or
// calls). depth stops a cycle, which the parser rejects anyway.
func serviceTime(t *graph.Topology, s *graph.Service, user func(header string) string, depth int) time.Duration {
	if s == nil || depth > len(t.Services) {
		return 0
	}
	d := hopCost
	for _, f := range s.Filters {
		if f.Kind == graph.Delay && f.Delay != nil && f.Delay.User == user(f.Delay.Header) {
			d += f.Delay.Duration
		}
	}
	switch {
	case s.Proxy != "":
		return d + serviceTime(t, t.Service(s.Proxy), user, depth+1)
	case len(s.Script) == 0:
		for _, c := range s.Calls {
			d += serviceTime(t, t.Service(c), user, depth+1)
		}
		return d
	}
	return d + stepsTime(t, s.Script, user, depth)
}

// stepsTime is the expected time of steps run in order.
func stepsTime(t *graph.Topology, steps []graph.Step, user func(string) string, depth int) time.Duration {
	var d time.Duration
	for _, st := range steps {
		switch st.Kind {
		case graph.Busywork, graph.Sleep:
			d += st.Duration
		case graph.Call:
			d += time.Duration(st.Prob * float64(serviceTime(t, t.Service(st.Name), user, depth+1)))
		case graph.Parallel:
			var longest time.Duration
			for _, p := range st.Steps {
				longest = max(longest, stepsTime(t, []graph.Step{p}, user, depth))
			}
			d += longest
		}
	}
	return d
}

// estimate is how long a trial t of v runs and how well that is known:
// exactly (a duration, or an open-loop request count at its rate), or
// estimated from requestTime (a request count one at a time or over
// workers), then never longer than the trial's duration cap.
func estimate(v *Variant, t Trial) (d time.Duration, kind int) {
	l := &v.Load
	if exact, k := l.length(t); k == lengthExact {
		return exact, lengthExact
	}
	per, hops, _ := requestTime(v)
	n := time.Duration(l.Requests)
	switch l.Mode {
	case Sequential:
		d = n * per
	default: // closed or ramp: the workers' latency, or the CPUs' throughput
		workers := time.Duration(max(1, t.Concurrency))
		cpu := n * cpuPerProcess * time.Duration(hops+1) / time.Duration(max(1, estimateCPUs()))
		d = max(n*per/workers, cpu)
	}
	if l.Duration > 0 && l.Duration < d {
		return l.Duration, lengthExact // the cap comes first
	}
	return d, lengthUnknown
}
