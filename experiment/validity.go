package experiment

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// The names of the flags Flags gives a run (docs/numbers.md, "What every
// number means"), in the order Flags reports them.
const (
	FlagInterrupted        = "interrupted"              // the run was stopped before its end
	FlagGeneratorSaturated = "generator_saturated"      // open loop: the generator fell behind its schedule
	FlagTargetCPUHigh      = "target_cpu_high"          // a target process used more CPU than its budget
	FlagErrors             = "errors"                   // too many requests failed
	FlagInconsistent       = "inconsistent"             // failures unlike the siblings' in kind or timing
	FlagTrend              = "trend"                    // the target's service time rose over the run
	FlagTooFewSamples      = analysis.FlagTooFewSamples // too few requests for a trustworthy p99 (validity.samples_for)
)

// RunCheck is what the validity checks look at for one run.
type RunCheck struct {
	Result   *record.Result   // the measured phase
	Points   []probe.Point    // probes of the run (process CPU among them)
	Siblings []*record.Result // earlier runs of the same variant and rate (other repetitions), for inconsistent
	Success  *record.CodeSet  // status codes that count as success; nil means below 400
}

// Flags returns the flags v gives the run c, each with its reason, in a fixed order:
// interrupted, generator_saturated, target_cpu_high, errors, inconsistent,
// trend, too_few_samples. A clean run gets none. A value exactly at a bound
// passes. The bounds are used as given: the zero Validity flags nearly
// everything, so start from DefaultValidity (ParseSpec does).
//
// The rule behind each flag:
//   - generator_saturated, open loop only (TargetRate > 0): the generator
//     fell behind, as analysis.FellBehind judges with MinAchieved and
//     MaxLagP99: fewer than MinAchieved of the requests due in the run were
//     sent, or lag p99 above MaxLagP99.
//   - target_cpu_high: the mean cpu_allowed_percent of a target above
//     CPUBudget, a target being a process probe's process with role "target"
//     and every process under it (label root), their shares summed at each
//     sample.
//   - errors: (ErrorsTotal+Unsuccessful)/Requests above MaxErrorRatio.
//   - inconsistent: see inconsistent below.
//   - trend: the target's service time (not latency, which holds the
//     generator's lag) rises over the run, or over a ramp's hold; see
//     trendReason and holdTrend in validity_trend.go, which also says why
//     the lag's trend is reported and not flagged.
//   - too_few_samples: the percentile of SamplesFor (p99 by default) would
//     be low-confidence (record.LowConfidence): fewer than 10/(1−q)
//     requests, 1000 for p99, 100 for p90.
func Flags(v spec.Validity, c RunCheck) []store.Flag {
	r := c.Result
	if r == nil {
		return nil
	}
	success := record.DefaultSuccess()
	if c.Success != nil {
		success = *c.Success
	}
	var flags []store.Flag
	add := func(name, reason string) {
		if reason != "" {
			flags = append(flags, store.Flag{Name: name, Reason: reason})
		}
	}
	if r.Interrupted {
		add(FlagInterrupted, fmt.Sprintf("the run was stopped before its end, after %s and %d completed requests",
			units.Duration(r.Duration()), r.Requests))
	}
	add(FlagGeneratorSaturated, saturated(v, r))
	add(FlagTargetCPUHigh, cpuHigh(v, c.Points))
	add(FlagErrors, errorRatio(v, r))
	add(FlagInconsistent, inconsistent(r, c.Siblings, success))
	add(FlagTrend, holdTrend(v, r))
	add(FlagTooFewSamples, tooFewSamples(r.Requests, v.SamplesQ()))
	return flags
}

// saturated gives the reason for generator_saturated, or "".
func saturated(v spec.Validity, r *record.Result) string {
	b := analysis.FellBehind(r, v.MinAchieved, v.MaxLagP99)
	var why []string
	if b.Short {
		why = append(why, fmt.Sprintf("achieved %s of %s (%s < %.4g%%): %d of %d due requests sent",
			units.Rate(b.Achieved*r.TargetRate), units.Rate(r.TargetRate), units.Percent(b.Achieved, 1), 100*v.MinAchieved, b.Sent, b.Due))
	}
	if b.Late {
		why = append(why, fmt.Sprintf("lag p99 %s > %s: requests left late", units.Duration(b.LagP99), units.Duration(v.MaxLagP99)))
	}
	return strings.Join(why, "; ")
}

// cpuHigh gives the reason for target_cpu_high, or "": every target
// whose mean share of its allowed CPUs exceeds the budget, a target being a
// process with its descendants (probe.Process's root label): at each
// sample their shares add up, so that a master that idles while its
// worker spins is flagged for the worker, and several workers for their
// sum. The busiest process of a tree of several is named.
func cpuHigh(v spec.Validity, points []probe.Point) string {
	budget := 100 * v.CPUBudget
	high := overBudget(targetTrees(points), budget)
	why := make([]string, len(high))
	for i, t := range high {
		why[i] = t.reason(budget)
	}
	return strings.Join(why, "; ")
}

// A targetProc is one target process's CPU samples.
type targetProc struct {
	pid, comm string
	sum       float64
	n         int
}

func (p *targetProc) mean() float64 { return p.sum / float64(max(p.n, 1)) }

// A targetTree is a target process with its descendants.
type targetTree struct {
	root  string
	cpus  float64                   // the most CPUs it was allowed
	at    map[time.Duration]float64 // the tree's share at each sample
	procs map[string]*targetProc
	mean  float64 // of at, once overBudget has taken it
}

// targetTrees adds up the process probe's CPU points of the targets by
// tree, keyed by their root's pid.
func targetTrees(points []probe.Point) map[string]*targetTree {
	trees := map[string]*targetTree{}
	for _, p := range points {
		if p.Probe != "process" || p.Labels["role"] != "target" {
			continue
		}
		pid := p.Labels["pid"]
		key := cmp.Or(p.Labels["root"], pid)
		tr := trees[key]
		if tr == nil {
			tr = &targetTree{root: key, at: map[time.Duration]float64{}, procs: map[string]*targetProc{}}
			trees[key] = tr
		}
		pr := tr.procs[pid]
		if pr == nil {
			pr = &targetProc{pid: pid}
			tr.procs[pid] = pr
		}
		if comm := p.Labels["comm"]; comm != "" {
			pr.comm = comm
		}
		switch p.Series {
		case "cpu_allowed_percent":
			pr.sum += p.Value
			pr.n++
			tr.at[p.T] += p.Value
		case "cpus_allowed":
			tr.cpus = max(tr.cpus, p.Value)
		}
	}
	return trees
}

// overBudget returns the trees whose mean share over their samples
// exceeds budget (a percentage), the busiest first, then by root.
func overBudget(trees map[string]*targetTree, budget float64) []*targetTree {
	var high []*targetTree
	for _, tr := range trees {
		if len(tr.at) == 0 {
			continue
		}
		var sum float64
		for _, x := range tr.at {
			sum += x
		}
		if tr.mean = sum / float64(len(tr.at)); tr.mean > budget {
			high = append(high, tr)
		}
	}
	slices.SortFunc(high, func(a, b *targetTree) int {
		return cmp.Or(cmp.Compare(b.mean, a.mean), cmp.Compare(a.root, b.root))
	})
	return high
}

// reason says how far t went over budget and, for a tree of several
// processes, which was the busiest.
func (t *targetTree) reason(budget float64) string {
	cpus := "the CPUs it may use"
	if t.cpus == 1 {
		cpus = "the 1 CPU it may use"
	} else if t.cpus > 1 {
		cpus = fmt.Sprintf("the %g CPUs it may use", t.cpus)
	}
	name := "?"
	if r := t.procs[t.root]; r != nil {
		name = cmp.Or(r.comm, "?")
	}
	who := fmt.Sprintf("target %s (pid %s)", name, t.root)
	if n := len(t.procs) - 1; n > 0 {
		who += fmt.Sprintf(" with %d process(es) under it", n)
	}
	why := fmt.Sprintf("%s used %.1f%% of %s on average over %d samples (> %.4g%%)", who, t.mean, cpus, len(t.at), budget)
	if len(t.procs) > 1 {
		busiest := slices.MaxFunc(slices.Collect(maps.Values(t.procs)), func(a, b *targetProc) int {
			return cmp.Or(cmp.Compare(a.mean(), b.mean()), cmp.Compare(b.pid, a.pid)) // the lower pid of a tie
		})
		why += fmt.Sprintf(", most in %s (pid %s) at %.1f%%", cmp.Or(busiest.comm, "?"), busiest.pid, busiest.mean())
	}
	return why
}

// errorRatio gives the reason for errors, or "".
func errorRatio(v spec.Validity, r *record.Result) string {
	failed := r.ErrorsTotal + r.Unsuccessful
	if r.Requests == 0 || float64(failed)/float64(r.Requests) <= v.MaxErrorRatio {
		return ""
	}
	return fmt.Sprintf("%s of %d requests failed (%d errors, %d unsuccessful responses) > %.4g%%",
		units.Percent(float64(failed)/float64(r.Requests), 2), r.Requests, r.ErrorsTotal, r.Unsuccessful, 100*v.MaxErrorRatio)
}

// counted stands for a histogram of n samples, so that record.Quantile's
// own rule says whether a percentile exists.
type counted int64

func (c counted) TotalCount() int64               { return int64(c) }
func (c counted) ValueAtPercentile(float64) int64 { return 0 }

// tooFewSamples gives the reason for too_few_samples with n requests when
// quantile q needs more, or "": it names the usual percentiles that are
// low-confidence or n/a.
func tooFewSamples(n int64, q float64) string {
	if !record.LowConfidence(n, q) {
		return ""
	}
	if n == 0 {
		return "no requests completed: every percentile is n/a"
	}
	var low, na []string
	for _, u := range []float64{0.5, 0.9, 0.99, 0.999} {
		if _, ok := record.Quantile(counted(n), u); !ok {
			na = append(na, quantileName(u))
		} else if record.LowConfidence(n, u) {
			low = append(low, quantileName(u))
		}
	}
	why := fmt.Sprintf("only %d requests, %s needs %.0f", n, quantileName(q), math.Ceil(10/(1-q)-1e-9))
	if len(low) > 0 {
		why += ": " + strings.Join(low, ", ") + " low-confidence"
	}
	if len(na) > 0 {
		why += "; " + strings.Join(na, ", ") + " n/a"
	}
	return why
}

// quantileName names quantile q as a percentile: p90, p99.9.
func quantileName(q float64) string {
	return "p" + strconv.FormatFloat(100*q, 'f', -1, 64)
}

// Thresholds of inconsistent.
const (
	kindMinRatio     = 0.001 // a run's failures count for their kinds above this share of its requests
	kindMinShare     = 0.01  // a kind counts when it makes at least this share of the failures
	burstMinFailures = 20    // burstiness is judged from this many failures
	burstMinInterval = 10    // and this many intervals
	burstTopShare    = 0.10  // concentrated: the worst 10% of the intervals
	burstHalf        = 0.50  // hold more than half of the failures
)

// inconsistent gives the reason for inconsistent, or "". A run is only
// inconsistent against siblings, so without any it never is. The rule:
//
//   - Kinds. A failure's kind is its error class ("timeout") or its
//     unsuccessful status ("status 503"). A kind is significant in a run
//     when the run's failures exceed 0.1% of its requests and the kind
//     makes at least 1% of them. The run is inconsistent when a kind
//     significant here occurs in no sibling at all, or when a kind
//     significant in more than half of the siblings does not occur here.
//   - Bursts. A run's failures are concentrated when, with at least 10
//     intervals and 20 failures, more than half of them fall in the worst
//     10% of its intervals. The run is inconsistent when its failures are
//     concentrated and no sibling's are.
func inconsistent(r *record.Result, siblings []*record.Result, success record.CodeSet) string {
	siblings = slices.DeleteFunc(slices.Clone(siblings), func(s *record.Result) bool { return s == nil })
	if len(siblings) == 0 {
		return ""
	}
	here := failureKinds(r, success)
	seen, sig := map[string]int{}, map[string]int{}
	sibBursts := 0
	for _, s := range siblings {
		kinds := failureKinds(s, success)
		for k := range kinds {
			seen[k]++
		}
		for _, k := range significant(s, kinds) {
			sig[k]++
		}
		if _, _, _, _, ok := failureBurst(s); ok {
			sibBursts++
		}
	}
	var why []string
	failed := r.ErrorsTotal + r.Unsuccessful
	for _, k := range significant(r, here) {
		if seen[k] == 0 {
			why = append(why, fmt.Sprintf("%s: %d of %d requests here (%s of the failures), in none of %d siblings",
				k, here[k], r.Requests, units.Percent(float64(here[k])/float64(failed), 0), len(siblings)))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sig)) {
		if 2*sig[k] > len(siblings) && here[k] == 0 {
			why = append(why, fmt.Sprintf("%s: a failure kind of %d of %d siblings, none here", k, sig[k], len(siblings)))
		}
	}
	if top, total, k, n, ok := failureBurst(r); ok && sibBursts == 0 {
		why = append(why, fmt.Sprintf("%d of %d failures (%s) fell in %d of %d intervals, while no sibling's failures were concentrated",
			top, total, units.Percent(float64(top)/float64(total), 0), k, n))
	}
	return strings.Join(why, "; ")
}

// failureKinds counts r's failures by kind: error class or unsuccessful status.
func failureKinds(r *record.Result, success record.CodeSet) map[string]int64 {
	kinds := map[string]int64{}
	for class, n := range r.Errors {
		if n > 0 {
			kinds[class] += n
		}
	}
	for code, n := range r.Codes {
		if n > 0 && !success.Has(code) {
			kinds["status "+record.CodeName(code)] += n
		}
	}
	return kinds
}

// significant returns, sorted, the kinds that make at least kindMinShare of
// r's failures, when those exceed kindMinRatio of its requests.
func significant(r *record.Result, kinds map[string]int64) []string {
	failed := r.ErrorsTotal + r.Unsuccessful
	if r.Requests == 0 || float64(failed)/float64(r.Requests) <= kindMinRatio {
		return nil
	}
	var out []string
	for k, n := range kinds {
		if float64(n) >= kindMinShare*float64(failed) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// failureBurst reports whether r's failures are concentrated: more than half of
// them (top of total) in its worst k of n intervals.
func failureBurst(r *record.Result) (top, total int64, k, n int, ok bool) {
	n = len(r.Intervals)
	per := make([]int64, n)
	for i, iv := range r.Intervals {
		per[i] = iv.Errors + iv.Unsuccessful
		total += per[i]
	}
	if n < burstMinInterval || total < burstMinFailures {
		return 0, total, 0, n, false
	}
	slices.SortFunc(per, func(a, b int64) int { return cmp.Compare(b, a) })
	k = max(1, int(burstTopShare*float64(n)))
	for _, f := range per[:k] {
		top += f
	}
	return top, total, k, n, float64(top) > burstHalf*float64(total)
}
