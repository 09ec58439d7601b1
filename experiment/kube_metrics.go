package experiment

import (
	"context"
	"errors"
	"time"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/probe"
)

// podMetricsEvery is how often the pods' metrics are read: as often as
// the process probe samples here. The metrics API gives a new value once
// per its own resolution (metrics-server's default is 15 s); each value
// is taken once.
var podMetricsEvery = time.Second

// kubeProcesses returns the probe of the CPU and memory of l's pods, a
// variant on the cluster, read from the metrics API (cluster.PodMetrics),
// as the process probe's series for a process: Probe "process", Labels
// role "target", pid and pod the pod's name, comm its workload and node
// its node, and
//   - "cpu_percent": CPU over the metrics API's window, in percent of one
//     core, at the window's end;
//   - "cpus_allowed" and "cpu_allowed_percent": the pod's CPU limit, else
//     its node's allocatable CPU where the node can be read, and the CPU
//     as a share of it, which validity's cpu_budget is checked against;
//   - "working_set_bytes": memory, the working set the API reports;
//   - "up": 1, or 0 with Labels["error"] when the API cannot be read.
//
// Without a metrics API it emits one "up" 0 saying so, and stops: the
// report tells the pods' CPU was not measured.
func (r *Runner) kubeProcesses(l *live) probeFunc {
	return func(ctx context.Context, start time.Time, emit func([]probe.Point)) error {
		seen := map[string]time.Time{} // by pod, the end of the last window taken
		tick := time.NewTicker(podMetricsEvery)
		defer tick.Stop()
		for {
			usage, err := r.kube.PodMetrics(ctx, l.namespace, l.selector)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				emit([]probe.Point{{Probe: "process", Series: "up", T: time.Since(start),
					Labels: map[string]string{"role": "target", "comm": "pods of " + l.v.Name, "error": err.Error()}}})
				if errors.Is(err, cluster.ErrNoMetricsAPI) {
					return nil
				}
			}
			var points []probe.Point
			for _, u := range usage {
				if !u.Time.After(start) || !u.Time.After(seen[u.Pod]) {
					continue
				}
				seen[u.Pod] = u.Time
				points = append(points, podPoints(u, u.Time.Sub(start))...)
			}
			if len(points) > 0 {
				emit(points)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
		}
	}
}

// podPoints are the process series of one pod's usage, at offset at.
func podPoints(u cluster.PodUsage, at time.Duration) []probe.Point {
	labels := map[string]string{"role": "target", "pid": u.Pod, "pod": u.Pod, "comm": u.Workload}
	if u.Node != "" {
		labels["node"] = u.Node
	}
	var out []probe.Point
	point := func(series string, v float64) {
		out = append(out, probe.Point{Probe: "process", Series: series, Labels: labels, T: at, Value: v})
	}
	point("up", 1)
	percent := 100 * u.CPU
	point("cpu_percent", percent)
	if cpus := u.CPULimit; cpus > 0 || u.NodeCPU > 0 {
		if cpus == 0 {
			cpus = u.NodeCPU
		}
		point("cpus_allowed", cpus)
		point("cpu_allowed_percent", percent/cpus)
	}
	point("working_set_bytes", float64(u.Memory))
	return out
}
