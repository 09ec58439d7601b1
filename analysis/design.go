package analysis

import "time"

// A Design is what an experiment's spec planned, as a report needs it:
// the variants in the spec's order, each with the levels its plan runs and
// the latencies its expect: field expects, the repetitions, and the bounds
// the runs were measured and judged with. The experiment package derives
// it from the stored spec. The zero Design, that of a spec that does not
// decode (such as the command line an attack stores), plans nothing: a
// report then goes by what the runs show.
type Design struct {
	Baseline string          // the spec's baseline, else its first variant; "" for none
	Variants []VariantDesign // in the spec's order
	Runs     int             // repetitions of each variant × level; 0 when unknown; under runs: auto, the most
	// AutoMin is, under runs: auto, the repetitions every variant ×
	// level runs before any stops (see Stop); 0 for a number of runs.
	AutoMin int
	// Grouped is true when the plan ran each variant × level's
	// repetitions together (order: grouped) rather than one of every
	// pair per repetition: runs of one repetition were then far apart,
	// and overheads compare them unpaired (Options.Unpaired).
	Grouped bool
	// CPUBudget is the share of its allowed CPUs a target may use; 0 when
	// unknown (see Budget).
	CPUBudget float64
	// MetricsWindow is the window of the metrics probe; 0 when unknown
	// (see Window).
	MetricsWindow time.Duration
	// LoadCPUs is the spec's cpus: {load: ...}, the CPUs latlab ran on,
	// as a CPU list; "" when it was not pinned.
	LoadCPUs string
}

// A VariantDesign is one variant of a Design.
type VariantDesign struct {
	Name   string
	Levels []Level      // its load's levels, in the spec's order
	Expect []Percentile // its expect: field by increasing quantile, named as Stats names them
}

// Budget returns d.CPUBudget, or DefaultCPUBudget when it is unknown.
func (d Design) Budget() float64 {
	if d.CPUBudget > 0 {
		return d.CPUBudget
	}
	return DefaultCPUBudget
}

// Window returns d.MetricsWindow, or DefaultMetricsWindow when it is
// unknown.
func (d Design) Window() time.Duration {
	if d.MetricsWindow > 0 {
		return d.MetricsWindow
	}
	return DefaultMetricsWindow
}
