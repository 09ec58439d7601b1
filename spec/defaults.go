package spec

import "time"

// The defaults of what latlab run measures and judges, each overridable in
// a spec: the validity bounds of a run (docs/numbers.md), which the attack report warns by too, and the metrics probe's
// window. A Design falls back on them where its spec tells nothing.
const (
	// DefaultMinAchieved and DefaultMaxLagP99 bound a generator that fell
	// behind its schedule (generator_saturated; see FellBehind): it sent
	// fewer than this share of the requests due, or lag p99 passed this.
	DefaultMinAchieved = 0.99
	DefaultMaxLagP99   = 5 * time.Millisecond
	// DefaultMaxErrorRatio is the share of failed requests past which
	// the numbers describe failures more than answers (errors).
	DefaultMaxErrorRatio = 0.01
	// DefaultMaxTrend is the fitted rise of the target's service time
	// over a run, as a share of its median, past which the run drifts
	// (trend; see Trend.Rising).
	DefaultMaxTrend = 0.10
	// DefaultCPUBudget is the share of its allowed CPUs a target may use
	// (target_cpu_high).
	DefaultCPUBudget = 0.75
	// DefaultMetricsWindow is the window of the metrics probe's rates and
	// quantiles.
	DefaultMetricsWindow = time.Minute
)
