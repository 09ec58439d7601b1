package analysis

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

// An AttackCheck is one limit of an SLO judged on one attack.
type AttackCheck struct {
	Limit string  // as written: "p99<50ms", "errors<1%"
	Max   float64 // the limit: seconds, or an error ratio
	// Value is the run's quantile of latency in seconds, or its error
	// ratio; NaN when n/a.
	Value float64
	// Bound is what is judged against Max: Value when strict, else the
	// lower bound of Value's 95% interval; NaN when n/a, which breaks the
	// limit. Judged says how it was found, or why there is none.
	Bound  float64
	Judged string
	Met    bool
}

// An AttackSLO is one attack judged against an SLO, limit by limit.
type AttackSLO struct {
	SLO    SLO
	Strict bool
	Checks []AttackCheck // the latency limits by quantile, then errors
}

// JudgeAttack judges the single run res against slo. A latency limit is
// judged on the run's quantile of latency (from the intended send) read
// from its total histogram, an error limit on the share of completed
// requests that failed or got a non-success code. By default a limit is
// broken only when the lower bound of the value's 95% interval is past
// it: for a quantile, the distribution-free interval between two order
// statistics (below the few samples that give one, the smallest sample);
// for the maximum, the largest sample, a lower bound itself; for the
// error ratio, the Wilson score interval. strict judges the values
// themselves. A quantile with too few samples to exist (p99 needs 100),
// or an error ratio of no requests, breaks its limit: a gate must not
// pass on no data.
func JudgeAttack(res *record.Result, slo SLO, strict bool) *AttackSLO {
	a := &AttackSLO{SLO: slo, Strict: strict}
	var h Histogram
	if res.Latency != nil { // keep a nil pointer out of the interface
		h = res.Latency
	}
	for _, lim := range slo.Latency {
		a.Checks = append(a.Checks, judgeQuantile(h, lim, strict))
	}
	if slo.Errors != nil {
		a.Checks = append(a.Checks, judgeErrors(res, *slo.Errors, strict))
	}
	return a
}

func judgeQuantile(h Histogram, lim spec.Percentile, strict bool) AttackCheck {
	c := AttackCheck{Limit: limit(lim), Max: lim.Latency.Seconds(), Value: math.NaN(), Bound: math.NaN()}
	var n int64
	if h != nil {
		n = h.TotalCount()
	}
	var v, bound time.Duration
	switch {
	case n == 0:
		c.Judged = "n/a: too few samples (none)"
		return c
	case lim.Q >= 1:
		v, bound, c.Judged = time.Duration(h.Max()), time.Duration(h.Max()), "largest sample"
	default:
		var ok bool
		if v, ok = record.Quantile(h, lim.Q); !ok {
			c.Judged = fmt.Sprintf("n/a: too few samples (%d, needs %d)", n, int64(math.Ceil(1/(1-lim.Q)-1e-9)))
			return c
		}
		lo, _, loOpen, _ := QuantileCI(h, lim.Q)
		switch {
		case strict:
			bound, c.Judged = v, "the run's "+lim.Name
		case loOpen:
			bound, c.Judged = lo, fmt.Sprintf("smallest sample (%d: too few for a 95%% bound)", n)
		default:
			bound, c.Judged = lo, "95% CI lower bound"
		}
	}
	c.Value, c.Bound, c.Met = v.Seconds(), bound.Seconds(), bound <= lim.Latency
	return c
}

func judgeErrors(res *record.Result, max float64, strict bool) AttackCheck {
	c := AttackCheck{Limit: errorsLimit(max), Max: max, Value: math.NaN(), Bound: math.NaN()}
	n := res.Requests
	if n <= 0 {
		c.Judged = "n/a: no requests completed"
		return c
	}
	failed := n - res.Successes()
	c.Value = float64(failed) / float64(n)
	if strict {
		c.Bound, c.Judged = c.Value, "the run's ratio"
	} else {
		c.Bound, _ = RatioCI(failed, n)
		c.Judged = "95% CI lower bound (Wilson)"
	}
	c.Met = c.Bound <= max
	return c
}

// Met reports whether the run meets every limit.
func (a *AttackSLO) Met() bool { return len(a.Broken()) == 0 }

// Broken returns the checks of the limits the run breaks.
func (a *AttackSLO) Broken() []AttackCheck {
	var out []AttackCheck
	for _, c := range a.Checks {
		if !c.Met {
			out = append(out, c)
		}
	}
	return out
}

// Err returns an error naming the broken limits, nil when the run meets
// every one.
func (a *AttackSLO) Err() error {
	broken := a.Broken()
	if len(broken) == 0 {
		return nil
	}
	names := make([]string, len(broken))
	for i, c := range broken {
		names[i] = c.Limit
	}
	return fmt.Errorf("SLO %s broken: %s", a.SLO, strings.Join(names, ", "))
}
