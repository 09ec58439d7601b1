package load

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/latlab/latlab/units"
)

// A Pacer is an open-loop schedule: it says when each request is due.
type Pacer interface {
	// Due returns when request i (counting from 0) is due, as an offset
	// from the start, and false when the schedule ends before it. Calls
	// come in increasing order of i.
	Due(i int64) (time.Duration, bool)
	// Mean returns the mean intended rate per second over the schedule's
	// length (the constant rate when it has no end).
	Mean() float64
}

// cumulative is a schedule given by its expected count of requests: at(x)
// is the time by which x requests are due.
type cumulative interface {
	at(x float64) (time.Duration, bool)
}

// Constant sends Rate requests per second, evenly spaced: request i is due
// at i/Rate.
type Constant struct{ Rate float64 }

var _ Pacer = Constant{}

// Due implements Pacer.
func (c Constant) Due(i int64) (time.Duration, bool) { return c.at(float64(i)) }

// Mean implements Pacer.
func (c Constant) Mean() float64 { return c.Rate }

func (c Constant) at(x float64) (time.Duration, bool) {
	if c.Rate <= 0 {
		return 0, false
	}
	return time.Duration(x / c.Rate * 1e9), true
}

// A Stage moves the rate linearly to Target over Duration.
type Stage struct {
	Duration time.Duration
	Target   float64 // requests per second at the stage's end
}

// Stages is a piecewise-linear rate, as k6's ramping arrival rate: from
// Start, each stage moves linearly to its target. The schedule ends with
// the last stage.
type Stages struct {
	Start float64 // rate at time 0
	Steps []Stage
}

var _ Pacer = Stages{}

// Due implements Pacer.
func (s Stages) Due(i int64) (time.Duration, bool) { return s.at(float64(i)) }

// Length returns the schedule's total duration.
func (s Stages) Length() time.Duration {
	var d time.Duration
	for _, st := range s.Steps {
		d += st.Duration
	}
	return d
}

// Mean implements Pacer.
func (s Stages) Mean() float64 {
	var n float64
	r0 := s.Start
	for _, st := range s.Steps {
		n += (r0 + st.Target) / 2 * st.Duration.Seconds()
		r0 = st.Target
	}
	if l := s.Length(); l > 0 {
		return n / l.Seconds()
	}
	return 0
}

func (s Stages) at(x float64) (time.Duration, bool) {
	var t0 time.Duration
	r0 := s.Start
	for _, st := range s.Steps {
		d := st.Duration.Seconds()
		r1 := st.Target
		count := (r0 + r1) / 2 * d
		if x <= 0 {
			return t0, true
		}
		if x < count {
			// Solve r0·t + (r1−r0)/(2d)·t² = x for t in [0, d], in the form
			// that stays stable when r0 is 0 or r1 equals r0.
			a := (r1 - r0) / (2 * d)
			t := 2 * x / (r0 + math.Sqrt(math.Max(r0*r0+4*a*x, 0)))
			return t0 + time.Duration(t*1e9), true
		}
		x -= count
		t0 += st.Duration
		r0 = r1
	}
	return 0, false
}

// ParseStages reads "30s:100,60s:1000" (duration:target-rate, ...). The
// stages last at most the longest time.Duration in all.
func ParseStages(s string) ([]Stage, error) {
	var out []Stage
	var total time.Duration
	for _, part := range strings.Split(s, ",") {
		d, r, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("stage %q: want DURATION:RATE, such as 30s:100", part)
		}
		dur, err := time.ParseDuration(d)
		if err != nil || dur <= 0 {
			return nil, fmt.Errorf("stage %q: %q is not a positive duration", part, d)
		}
		if total > math.MaxInt64-dur {
			return nil, fmt.Errorf("stage %q: the stages last longer than %v in all", part, time.Duration(math.MaxInt64))
		}
		total += dur
		rate, err := units.ParseRate(r)
		if err != nil {
			return nil, fmt.Errorf("stage %q: %q is %w", part, r, err)
		}
		out = append(out, Stage{Duration: dur, Target: rate})
	}
	return out, nil
}

// Poisson turns a Constant or Stages schedule into Poisson arrivals with
// the same rate: gaps are exponential, so requests bunch as real clients
// do. Its Due must be called with i counting up from 0.
type Poisson struct {
	Of   Pacer // Constant or Stages
	Seed uint64

	rng  *rand.Rand
	next int64
	x    float64
}

var _ Pacer = (*Poisson)(nil)

// Due implements Pacer.
func (p *Poisson) Due(i int64) (time.Duration, bool) {
	c, ok := p.Of.(cumulative)
	if !ok {
		return 0, false
	}
	if p.rng == nil {
		p.rng = rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	}
	for p.next <= i {
		if p.next > 0 {
			p.x += p.rng.ExpFloat64()
		}
		p.next++
	}
	return c.at(p.x)
}

// Mean implements Pacer.
func (p *Poisson) Mean() float64 { return p.Of.Mean() }
