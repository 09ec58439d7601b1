package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/latlab/latlab/analysis"
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
	SLO    analysis.SLO
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
func JudgeAttack(res *record.Result, slo analysis.SLO, strict bool) *AttackSLO {
	a := &AttackSLO{SLO: slo, Strict: strict}
	var h analysis.Histogram
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

func judgeQuantile(h analysis.Histogram, lim analysis.Percentile, strict bool) AttackCheck {
	c := AttackCheck{Limit: lim.Name + "<" + lim.Latency.String(), Max: lim.Latency.Seconds(),
		Value: math.NaN(), Bound: math.NaN()}
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
		lo, _, loOpen, _ := analysis.QuantileCI(h, lim.Q)
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
	c := AttackCheck{Limit: "errors<" + strconv.FormatFloat(100*max, 'g', -1, 64) + "%", Max: max, Value: math.NaN(), Bound: math.NaN()}
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
		c.Bound, _ = analysis.RatioCI(failed, n)
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
	return fmt.Errorf("SLO %s broken: %s", FormatSLO(a.SLO), strings.Join(names, ", "))
}

// WriteText writes the SLO block latlab attack prints after its result:
// the SLO, what it was judged on, and a row per limit with the run's
// value, the bound judged and the verdict.
func (a *AttackSLO) WriteText(w io.Writer) error {
	var b strings.Builder
	verdict := "met"
	if n := len(a.Broken()); n > 0 {
		verdict = fmt.Sprintf("%d of %d limits broken", n, len(a.Checks))
	}
	judged := "the lower bound of each value's 95% interval"
	if a.Strict {
		judged = "the run's values (strict)"
	}
	fmt.Fprintf(&b, "\nSLO        %s: %s, judged on %s\n", FormatSLO(a.SLO), verdict, judged)
	a.table(&b, a.Checks)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteViolations writes the rows of the broken limits as WriteText does,
// with a heading; nothing when the run meets the SLO.
func (a *AttackSLO) WriteViolations(w io.Writer) error {
	broken := a.Broken()
	if len(broken) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SLO %s broken:\n", FormatSLO(a.SLO))
	a.table(&b, broken)
	_, err := io.WriteString(w, b.String())
	return err
}

func (a *AttackSLO) table(b *strings.Builder, checks []AttackCheck) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  limit\tvalue\tbound\tjudged on\tverdict")
	for _, c := range checks {
		verdict := "met"
		if !c.Met {
			verdict = "broken"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.Limit, sloValue(c.Value, c.Limit), sloValue(c.Bound, c.Limit), c.Judged, verdict)
	}
	tw.Flush()
}

// AttackSLOJSON is the "slo" key latlab attack --slo adds to its JSON
// summary. Like record.Summary's, its keys are a contract: times in
// seconds, ratios from 0 to 1, null for a value that is n/a.
type AttackSLOJSON struct {
	SLO    string            `json:"slo"` // as --slo takes it
	Strict bool              `json:"strict"`
	Met    bool              `json:"met"`
	Limits []AttackLimitJSON `json:"limits"`
}

// AttackLimitJSON is one limit judged; see AttackCheck.
type AttackLimitJSON struct {
	Limit  string   `json:"limit"`
	Max    float64  `json:"max"` // seconds, or an error ratio
	Value  *float64 `json:"value"`
	Bound  *float64 `json:"bound"`
	Judged string   `json:"judged"`
	Met    bool     `json:"met"`
}

// JSON returns a as AttackSLOJSON.
func (a *AttackSLO) JSON() *AttackSLOJSON {
	out := &AttackSLOJSON{SLO: FormatSLO(a.SLO), Strict: a.Strict, Met: a.Met(), Limits: []AttackLimitJSON{}}
	for _, c := range a.Checks {
		out.Limits = append(out.Limits, AttackLimitJSON{Limit: c.Limit, Max: c.Max, Value: num(c.Value),
			Bound: num(c.Bound), Judged: c.Judged, Met: c.Met})
	}
	return out
}

// AttackJSON is the JSON form of an attack: record.Summary's keys, and
// "slo" when an SLO was judged.
type AttackJSON struct {
	record.Summary
	SLO *AttackSLOJSON `json:"slo,omitempty"`
}

// WriteAttackJSON writes res as one indented JSON object: its
// record.Summary and, when slo is not nil, the verdict under "slo".
func WriteAttackJSON(w io.Writer, res *record.Result, slo *AttackSLO) error {
	sum, err := record.Summarize(res)
	if err != nil {
		return err
	}
	if slo == nil {
		return sum.WriteJSON(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(AttackJSON{Summary: sum, SLO: slo.JSON()})
}
