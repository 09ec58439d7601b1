package probe

import "time"

// Point is one measurement a probe took while a run went on. The runner
// stores points as series per run.
//
// Probe names the probe that took it ("metrics", "process", "pprof", …),
// Series what was measured, with its unit in the name where it has one
// ("p99_seconds", "cpu_percent", "rss_bytes", "up"). Labels tell series of the
// same name apart (histogram family, instance, pid, …); a failed measurement
// is a point with Series "up", Value 0 and the reason in Labels["error"].
// Labels may be shared between points; treat them as read-only.
// T is the offset from the start of the run at which the value was taken.
type Point struct {
	Probe, Series string
	Labels        map[string]string
	T             time.Duration // offset from run start
	Value         float64
}
