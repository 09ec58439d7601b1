package load

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Validate returns the first option of s that is wrong on its own, as an
// *OptionError naming it by its spec key ("max_in_flight"), or nil: the
// levels first, then the limits, the transport and the samples. It
// does not judge how the options fit together or the requests they apply
// to (see Check), nor read files (see Transport).
func (s *Settings) Validate() error {
	bad := func(option, format string, a ...any) error {
		return &OptionError{Option: option, Msg: fmt.Sprintf(format, a...)}
	}
	if !isMode(s.Mode) {
		return bad("mode", "want open, closed, ramp or sequential, got %q", s.Mode)
	}
	for _, c := range s.Concurrency {
		if c < 1 {
			return bad("concurrency", "want at least 1, got %d", c)
		}
	}
	switch s.Arrivals {
	case "", ConstantArrivals, PoissonArrivals:
	default:
		return bad("arrivals", "want constant or poisson, got %q", s.Arrivals)
	}
	for _, r := range s.Rates {
		if math.IsInf(r, 0) || math.IsNaN(r) || r < 0 || r == 0 && len(s.Stages) == 0 {
			return bad("rates", "want a positive rate, got %g", r)
		}
	}
	if r := s.Ramp; r != nil && (r.Burst < 1 || r.Every <= 0) {
		return bad("ramp", "want a burst of at least 1 and a positive period, got %d and %s", r.Burst, r.Every)
	}
	switch {
	case s.MaxInFlight < 0:
		return bad("max_in_flight", "want at least 1, got %d", s.MaxInFlight)
	case s.Requests < 0:
		return bad("requests", "want a positive number of requests, got %d", s.Requests)
	case s.Duration < 0:
		return positive("duration", s.Duration)
	case s.Warmup < 0:
		return positive("warmup", s.Warmup)
	case s.Interval <= 0:
		return positive("interval", s.Interval)
	}
	if _, err := s.codes(); err != nil {
		return bad("success", "%v", err)
	}
	switch {
	case s.Timeout <= 0:
		return positive("timeout", s.Timeout)
	case s.Connections < 0:
		return bad("connections", "want at least 1, got %d", s.Connections)
	case s.Streams < 1:
		return bad("streams", "want at least 1, got %d", s.Streams)
	case s.HTTP2 && s.H2C:
		return bad("h2c", "HTTP/2 over cleartext cannot be used with http2 (over TLS)")
	}
	switch s.Client {
	case "", LeanClient, NetHTTPClient:
	default:
		return bad("client", "want lean or nethttp, got %q", s.Client)
	}
	if s.Samples < 0 {
		return bad("samples", "want 0 or more, got %d", s.Samples)
	}
	return nil
}

// positive returns the error of a duration option that must be positive.
func positive(option string, d time.Duration) error {
	return &OptionError{Option: option, Msg: fmt.Sprintf("want a positive duration, got %s", d)}
}

// isMode reports whether m is one of Modes, or "" (open).
func isMode(m Mode) bool { return m == "" || slices.Contains(Modes, m) }
