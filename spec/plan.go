package spec

import (
	"math/bits"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
)

// A Trial is one measured run of a plan: a variant at one rate (or
// concurrency), one repetition.
type Trial struct {
	Variant string
	// The level: in open mode the rate, requests per second; in closed
	// and ramp modes the concurrency, workers; sequential: concurrency 1.
	record.Level
	Rep      int // the repetition, from 1 to Spec.Runs
	Position int // the trial's place in the plan, from 1
}

// A cell is a variant at one level: what the repetitions of a trial share.
type Cell struct {
	Variant string
	Level   record.Level
}

// Cell returns the cell t repeats.
func (t Trial) Cell() Cell { return Cell{t.Variant, t.Level} }

// PlanVersion is the version of the interleaved order Plan draws, stored
// with every new experiment: latlab run resumes an experiment by drawing
// its plan again from its stored seed, so an order once drawn must never
// change, and a better one comes as a new version beside it (see PlanOf).
const PlanVersion = 2

// Plan returns the trials of s: every variant at every level of its load
// (rates, concurrencies, or one sequential level), Spec.Runs times, in
// Spec.Order, drawn as PlanVersion draws it. Interleaved, each repetition
// runs every (variant, level) pair once, in an order drawn from seed; the
// same seed gives the same plan, on any platform and Go version. Grouped,
// the trials run variant by variant, level by level, with the
// repetitions of a level together; seed is unused. When the spec gives
// no seed the caller picks one, and stores it to make the plan again.
func (s *Spec) Plan(seed int64) []Trial {
	return s.PlanOf(seed, PlanVersion)
}

// PlanOf is Plan as version (1 to PlanVersion) of the interleaved order
// draws it; grouped plans are the same in every version.
//
// Version 1 shuffles each repetition's trials as one: a variant's run and
// its baseline's at the same level can be a whole repetition apart.
// Version 2 shuffles a repetition's levels, then the variants of each
// level, so that the runs a paired comparison sets against each other run
// side by side, at most as many trials apart as there are variants: what
// changes on the machine between them is only what changes within a few
// runs. It also sets up each level once per repetition, which restart:
// per-rate needs.
func (s *Spec) PlanOf(seed int64, version int) []Trial {
	var pairs []Trial
	for _, v := range s.Variants {
		pairs = append(pairs, v.Load.levels(v.Name)...)
	}
	trials := make([]Trial, 0, len(pairs)*s.Runs)
	switch {
	case s.Order == Grouped:
		for _, p := range pairs {
			for rep := 1; rep <= s.Runs; rep++ {
				p.Rep = rep
				trials = append(trials, p)
			}
		}
	case version == 1:
		rng := splitmix(uint64(seed))
		for rep := 1; rep <= s.Runs; rep++ {
			start := len(trials)
			for _, p := range pairs {
				p.Rep = rep
				trials = append(trials, p)
			}
			shuffleTrials(&rng, trials[start:])
		}
	default:
		byLevel := levelGroups(pairs)
		rng := splitmix(uint64(seed))
		for rep := 1; rep <= s.Runs; rep++ {
			rng.shuffle(len(byLevel), func(i, j int) { byLevel[i], byLevel[j] = byLevel[j], byLevel[i] })
			for _, g := range byLevel {
				start := len(trials)
				for _, p := range g {
					p.Rep = rep
					trials = append(trials, p)
				}
				shuffleTrials(&rng, trials[start:])
			}
		}
	}
	for i := range trials {
		trials[i].Position = i + 1
	}
	return trials
}

// levelGroups returns pairs grouped by level: levels in the order they
// first come, the variants of each in pairs' order.
func levelGroups(pairs []Trial) [][]Trial {
	var out [][]Trial
	at := map[record.Level]int{}
	for _, p := range pairs {
		i, ok := at[p.Level]
		if !ok {
			i = len(out)
			at[p.Level] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

// levels returns the points of l's sweep as trials of variant, without
// repetition or position.
func (l Load) levels(variant string) []Trial {
	var out []Trial
	switch l.Mode {
	case Open:
		for _, r := range l.Rates {
			out = append(out, Trial{Variant: variant, Level: record.Level{Rate: r}})
		}
	case Closed, Ramp:
		for _, c := range l.Concurrency {
			out = append(out, Trial{Variant: variant, Level: record.Level{Concurrency: c}})
		}
	case Sequential:
		out = append(out, Trial{Variant: variant, Level: record.Level{Concurrency: 1}})
	}
	return out
}

// splitmix is the SplitMix64 generator: small, fast and fully specified,
// so that a plan drawn from a seed never changes.
type splitmix uint64

// next returns the next 64 random bits.
func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// shuffle puts n things in a random order (Fisher–Yates), swap swapping
// two of them. The draw of each index is the high word of a 128-bit
// product, whose bias is below 2⁻⁵⁰ for any plan.
func (s *splitmix) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		j, _ := bits.Mul64(s.next(), uint64(i+1))
		swap(i, int(j))
	}
}

// shuffleTrials puts t in a random order drawn from s.
func shuffleTrials(s *splitmix, t []Trial) {
	s.shuffle(len(t), func(i, j int) { t[i], t[j] = t[j], t[i] })
}

// Stamp sets what the plan knows of t's measured result res that its
// attack does not: the level as the spec gave it, and the requests of
// the warm-up, nil when there was none. The result of one shard of
// several keeps its own part of the rate, which their merge adds up to
// the trial's.
func (t Trial) Stamp(res, warm *record.Result, sh load.Shard) {
	if sh.Count <= 1 {
		res.TargetRate = t.Rate // the plan's level as the spec gave it, not the schedule's mean; 0 in closed loop
	}
	if warm != nil {
		// The warm-up ran as an attack of its own, so the measured one
		// has no count of it; load.Attack's --warmup counts the same way.
		res.WarmupRequests = warm.Requests
	}
}
