package load

import "sync/atomic"

// A Source gives the requests of each iteration: one per step, in order.
type Source interface {
	// Steps names the steps; a source of single requests has one step.
	Steps() []string
	// Request returns the request for step of the iteration described by
	// v. It is called from many goroutines at once.
	Request(step int, v Vars) (*Request, error)
}

// Static is a Source that sends its requests round robin, one per
// iteration.
type Static []*Request

var _ Source = Static{}

// Steps implements Source.
func (s Static) Steps() []string { return []string{""} }

// Request implements Source.
func (s Static) Request(_ int, v Vars) (*Request, error) {
	return s[uint64(v.Seq)%uint64(len(s))], nil
}

// counter is a shared iteration counter padded onto its own cache line.
type counter struct {
	n atomic.Int64
	_ [56]byte
}

var _ Source = (*Scenario)(nil)

// Steps implements Source: the scenario's step names.
func (s *Scenario) Steps() []string { return s.Names() }

// Request implements Source: step built for the iteration v.
func (s *Scenario) Request(step int, v Vars) (*Request, error) { return s.Build(step, v) }
