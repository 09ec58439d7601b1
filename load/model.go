package load

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A Model says when requests are sent: Open, Closed, Ramp or Sequential.
type Model interface{ isModel() }

// Open sends on Pacer's schedule whatever the target does. When
// MaxInFlight requests are in flight, the next one waits; its wait counts as
// lag and in its latency, never dropped.
type Open struct {
	Pacer       Pacer
	MaxInFlight int // 0 means DefaultMaxInFlight
}

// Closed runs Workers workers; each sends its next request when its last
// one finished.
type Closed struct{ Workers int }

// Ramp is a closed loop that starts Burst workers, then Burst more every
// Every, up to Workers, and holds there.
type Ramp struct {
	Workers int
	Burst   int
	Every   time.Duration
}

// Hold returns when the ramp's last workers are due to start, from the
// start of the run: the load holds from then on.
func (m Ramp) Hold() time.Duration {
	if m.Burst < 1 || m.Workers <= m.Burst {
		return 0
	}
	return time.Duration((m.Workers+m.Burst-1)/m.Burst-1) * m.Every
}

// started returns how many of the ramp's workers have started once its
// burst numbered step (from 0) has.
func (m Ramp) started(step int) int {
	return min(m.Workers, (step+1)*m.Burst)
}

// rampOf returns a closed loop as the ramp that starts all its workers at
// once.
func rampOf(m Model) Ramp {
	switch m := m.(type) {
	case Ramp:
		return m
	case Closed:
		return Ramp{Workers: m.Workers, Burst: m.Workers, Every: time.Hour}
	}
	return Ramp{Workers: 1, Burst: 1, Every: time.Hour} // Sequential
}

// ParseRamp reads a Ramp's Burst and Every as --ramp writes them:
// "300/30s" starts 300 workers every 30 seconds.
func ParseRamp(s string) (burst int, every time.Duration, err error) {
	b, e, ok := strings.Cut(s, "/")
	burst, err = strconv.Atoi(b)
	if !ok || err != nil || burst < 1 {
		return 0, 0, errors.New("want BURST/EVERY, such as 300/30s")
	}
	every, err = time.ParseDuration(e)
	if err != nil || every <= 0 {
		return 0, 0, fmt.Errorf("%q is not a positive duration", e)
	}
	return burst, every, nil
}

// Sequential sends one request at a time over one connection.
type Sequential struct{}

func (Open) isModel()       {}
func (Closed) isModel()     {}
func (Ramp) isModel()       {}
func (Sequential) isModel() {}

// modeName returns the model's name as output shows it.
func modeName(m Model) string {
	switch m.(type) {
	case Open:
		return "open"
	case Closed:
		return "closed"
	case Ramp:
		return "ramp"
	case Sequential:
		return "sequential"
	}
	return ""
}
