package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// WriteAttackSLO writes the SLO block latlab attack prints after its
// result: the SLO, what it was judged on, and a row per limit with the
// run's value, the bound judged and the verdict.
func WriteAttackSLO(w io.Writer, a *analysis.AttackSLO) error {
	var b strings.Builder
	verdict := "met"
	if n := len(a.Broken()); n > 0 {
		verdict = fmt.Sprintf("%d of %d limits broken", n, len(a.Checks))
	}
	judged := "the lower bound of each value's 95% interval"
	if a.Strict {
		judged = "the run's values (strict)"
	}
	fmt.Fprintf(&b, "\nSLO        %s: %s, judged on %s\n", a.SLO, verdict, judged)
	attackChecks(&b, a.Checks)
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
	return err
}

// WriteAttackViolations writes the rows of the broken limits as
// WriteAttackSLO does, with a heading; nothing when the run meets the SLO.
func WriteAttackViolations(w io.Writer, a *analysis.AttackSLO) error {
	broken := a.Broken()
	if len(broken) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SLO %s broken:\n", a.SLO)
	attackChecks(&b, broken)
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
	return err
}

func attackChecks(b *strings.Builder, checks []analysis.AttackCheck) {
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

// AttackLimitJSON is one limit judged; see analysis.AttackCheck.
type AttackLimitJSON struct {
	Limit  string   `json:"limit"`
	Max    float64  `json:"max"` // seconds, or an error ratio
	Value  *float64 `json:"value"`
	Bound  *float64 `json:"bound"`
	Judged string   `json:"judged"`
	Met    bool     `json:"met"`
}

// attackSLOJSON returns a as AttackSLOJSON.
func attackSLOJSON(a *analysis.AttackSLO) *AttackSLOJSON {
	out := &AttackSLOJSON{SLO: a.SLO.String(), Strict: a.Strict, Met: a.Met(), Limits: []AttackLimitJSON{}}
	for _, c := range a.Checks {
		out.Limits = append(out.Limits, AttackLimitJSON{Limit: c.Limit, Max: c.Max, Value: num(c.Value),
			Bound: num(c.Bound), Judged: c.Judged, Met: c.Met})
	}
	return out
}

// AttackJSON is the JSON form of an attack: record.Summary's keys, "slo"
// when an SLO was judged, and "shards" when several generators sent the
// load.
type AttackJSON struct {
	record.Summary
	SLO *AttackSLOJSON `json:"slo,omitempty"`
	// Shards are the generators of a sharded attack, each with its own
	// result (the summary is theirs merged exactly); absent for one.
	Shards []ShardJSON `json:"shards,omitempty"`
	// ShardStartSpread is, in seconds, the latest shard's start less the
	// earliest's; absent for one generator, or when no shard started.
	ShardStartSpread *float64 `json:"shard_start_spread_seconds,omitempty"`
}

// WriteAttackJSON writes res as one indented JSON object: its
// record.Summary, the verdict under "slo" when slo is not nil, and the
// shards under "shards" when there are any.
func WriteAttackJSON(w io.Writer, res *record.Result, slo *analysis.AttackSLO, shards []store.Shard) error {
	sum, err := record.Summarize(res)
	if err != nil {
		return err
	}
	out := AttackJSON{Summary: sum}
	if slo != nil {
		out.SLO = attackSLOJSON(slo)
	}
	if len(shards) > 0 {
		out.Shards, out.ShardStartSpread = shardsJSON(shardRows(shards))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
