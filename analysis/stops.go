package analysis

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/latlab/latlab/store"
)

// A StopReason says why runs: auto stopped repeating a variant at a
// level. Its text is what the JSON report gives.
type StopReason string

// The reasons a cell stopped.
const (
	// StopPrecise: every overhead it must make precise had a 95%
	// interval no wider than its goal.
	StopPrecise StopReason = "precise"
	// StopMax: it ran the most repetitions allowed.
	StopMax StopReason = "max"
	// StopBudget: the next repetition would have passed the time budget.
	StopBudget StopReason = "budget"
	// StopUnjudged: the baseline does not run at its level, so it has no
	// overhead to make precise; it ran the fewest repetitions.
	StopUnjudged StopReason = "nothing_to_compare"
)

// A Stop says why runs: auto stopped repeating a variant at one level,
// after how many repetitions, and how wide its overheads' intervals were
// then (for a cell that never became precise, at the end).
type Stop struct {
	Variant     string     `json:"variant"`
	Rate        float64    `json:"rate"`        // the level's, as Level
	Concurrency int        `json:"concurrency"` // the level's, as Level
	Runs        int        `json:"runs"`        // repetitions run, 1 to Runs, flagged and failed ones included
	LeftOut     int        `json:"left_out"`    // of those, flagged, unfinished or unreadable: no part of the intervals
	Reason      StopReason `json:"reason"`
	Widths      []Width    `json:"widths,omitempty"`
}

// Level returns the level s stopped at.
func (s Stop) Level() Level { return Level{Rate: s.Rate, Concurrency: s.Concurrency} }

// String says why s stopped in one line: "proxy 100/s: precise after 9
// runs (p50 width 3.1µs ≤ 4.5µs, p99 width 40µs ≤ 52µs)", "proxy 200/s:
// max reached after 30 runs, not precise (p50 width 3.1µs ≤ 4.5µs, p99
// width 120µs > 52µs)".
func (s Stop) String() string {
	runs := fmt.Sprintf("%d runs", s.Runs)
	if s.Runs == 1 {
		runs = "1 run"
	}
	if s.LeftOut > 0 {
		runs += fmt.Sprintf(" (%d flagged or unfinished, left out)", s.LeftOut)
	}
	var why string
	switch s.Reason {
	case StopPrecise:
		why = "precise after " + runs
	case StopMax:
		why = "max reached after " + runs + ", not precise"
	case StopBudget:
		why = "budget spent after " + runs + ", not precise"
	case StopUnjudged:
		why = "nothing to compare with at this level, " + runs
	default:
		why = string(s.Reason) + " after " + runs
	}
	line := s.Variant + " " + s.Level().String() + ": " + why
	if len(s.Widths) > 0 {
		ws := make([]string, len(s.Widths))
		for i, w := range s.Widths {
			ws[i] = w.String()
		}
		line += " (" + strings.Join(ws, ", ") + ")"
	}
	return line
}

// StopsKey is the provenance entry (store.Provenance.Extra) in which an
// experiment under runs: auto keeps its Stops, as JSON, once its last
// cell has stopped.
const StopsKey = "runs_auto"

// StoredStops returns the Stops stored in p; none when p has none.
func StoredStops(p store.Provenance) ([]Stop, error) {
	s, ok := p.Extra[StopsKey]
	if !ok {
		return nil, nil
	}
	var out []Stop
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("provenance extra.%s: %w", StopsKey, err)
	}
	return out, nil
}

// EncodeStops returns stops as StoredStops reads them.
func EncodeStops(stops []Stop) string {
	b, _ := json.Marshal(stops) // plain fields: it cannot fail
	return string(b)
}
