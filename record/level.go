package record

import (
	"cmp"
	"strconv"

	"github.com/latlab/latlab/units"
)

// A Level is the load of one point of a sweep: a target rate in open loop,
// a concurrency in closed loop, or both when open loop caps requests in
// flight. It is a value: two levels are the same level exactly when they
// are ==, and a Level is a map key.
//
// A rate's identity is the binary64 value the spec's number reads as
// (strconv.ParseFloat rounds correctly, so one text always gives one
// value), and its text is the shortest decimal that reads back as that
// value, as strconv.FormatFloat(rate, 'g', -1, 64) writes it. Text and
// value go both ways without loss (the rate in String reads back as
// l.Rate), and two rates are one level only when they are one number. A
// level's rate is carried from the spec to the store and the report, never
// recomputed: a rate derived from it (a warm-up's share, a schedule's
// mean) is a figure, not a level.
type Level struct {
	Rate        float64 // target requests (or scenario iterations) per second; 0 in closed loop
	Concurrency int     // workers, or open loop's cap on requests in flight; 0 for none
}

// String returns the level's canonical text, as a column shows it:
// "100/s", "c=8", "100/s c=8".
func (l Level) String() string {
	switch {
	case l.Rate == 0:
		return "c=" + strconv.Itoa(l.Concurrency)
	case l.Concurrency == 0:
		return units.ExactRate(l.Rate)
	}
	return units.ExactRate(l.Rate) + " c=" + strconv.Itoa(l.Concurrency)
}

// Compare orders levels by rate, then by concurrency, for sorting.
func (l Level) Compare(o Level) int {
	return cmp.Or(cmp.Compare(l.Rate, o.Rate), cmp.Compare(l.Concurrency, o.Concurrency))
}
