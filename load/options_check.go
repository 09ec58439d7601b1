package load

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Validate returns every option of s that is wrong on its own (out of
// its range, such as a count past MaxCount, or not one of its values),
// each as an
// *OptionError naming it by its spec key ("max_in_flight") and, for a
// level, by its item, joined by errors.Join in this order: the levels
// first, then the limits, the transport and the samples; or nil. First
// picks the first. given names, by spec key, the options given
// explicitly whose 0 must then be refused, where left out it means none
// or the default: duration, requests, max_in_flight, pool and connections. It
// does not judge how the options fit together or the
// requests they apply to (see Check), nor read files (see Transport).
func (s *Settings) Validate(given ...string) error {
	c := &checker{given: given}
	s.checkLevels(c)
	s.checkSpan(c)
	s.checkRequests(c)
	return errors.Join(c.errs...)
}

// A checker gathers the problems of options, each an *OptionError.
type checker struct {
	given []string // options given, whose 0 is then too few
	errs  []error
}

// bad adds a problem of item (from 1; 0 for the option as a whole) of
// option.
func (c *checker) bad(option string, item int, format string, a ...any) {
	c.errs = append(c.errs, &OptionError{Option: option, Item: item, Msg: fmt.Sprintf(format, a...)})
}

// least returns the least value of an option whose 0 means none: 1 when
// it was given, else 0.
func (c *checker) least(option string) int64 {
	if slices.Contains(c.given, option) {
		return 1
	}
	return 0
}

// count checks that n, option's value, is within [min, max]; what says
// what is wanted below min.
func (c *checker) count(option string, n, min, max int64, what string) {
	switch {
	case n < min:
		c.bad(option, 0, "want %s, got %d", what, n)
	case n > max:
		c.bad(option, 0, "want at most %d, got %d", max, n)
	}
}

// duration checks that d, option's value, is within [min, MaxDuration].
func (c *checker) duration(option string, d, min time.Duration) {
	switch {
	case d < min:
		c.bad(option, 0, "want a positive duration, got %s", d)
	case d > MaxDuration:
		c.bad(option, 0, "want at most %s, got %s", MaxDuration, d)
	}
}

// checkLevels checks the mode and what sets its levels: concurrency,
// arrivals, rates and ramp.
func (s *Settings) checkLevels(c *checker) {
	if !isMode(s.Mode) {
		c.bad("mode", 0, "want open, closed, ramp or sequential, got %q", s.Mode)
	}
	for i, n := range s.Concurrency {
		switch {
		case n < 1:
			c.bad("concurrency", i+1, "want at least 1, got %d", n)
		case n > MaxCount:
			c.bad("concurrency", i+1, "want at most %d, got %d", MaxCount, n)
		case slices.Contains(s.Concurrency[:i], n):
			c.bad("concurrency", i+1, "duplicate concurrency %d", n)
		}
	}
	switch s.Arrivals {
	case "", ConstantArrivals, PoissonArrivals:
	default:
		c.bad("arrivals", 0, "want constant or poisson, got %q", s.Arrivals)
	}
	for i, r := range s.Rates {
		switch {
		case !s.rateOK(r):
			c.bad("rates", i+1, "want a positive rate, got %g", r)
		case r > MaxRate:
			c.bad("rates", i+1, "want at most %g, got %g", MaxRate, r)
		case slices.Contains(s.Rates[:i], r):
			c.bad("rates", i+1, "duplicate rate %g", r)
		}
	}
	if r := s.Ramp; r != nil {
		switch {
		case r.Burst < 1 || r.Every <= 0:
			c.bad("ramp", 0, "want a burst of at least 1 and a positive period, got %d and %s", r.Burst, r.Every)
		case r.Burst > MaxCount || r.Every > MaxDuration:
			c.bad("ramp", 0, "want a burst of at most %d and a period of at most %s, got %d and %s", MaxCount, MaxDuration, r.Burst, r.Every)
		}
	}
}

// checkSpan checks what bounds the load in flight and in time.
func (s *Settings) checkSpan(c *checker) {
	c.count("max_in_flight", int64(s.MaxInFlight), c.least("max_in_flight"), MaxCount, "at least 1")
	c.count("pool", int64(s.Pool), c.least("pool"), MaxCount, "at least 1")
	c.count("requests", s.Requests, c.least("requests"), MaxRequests, "a positive number of requests")
	c.duration("duration", s.Duration, time.Duration(c.least("duration")))
	c.duration("warmup", s.Warmup, 0)
	c.duration("interval", s.Interval, 1)
}

// checkRequests checks the requests and how they are sent.
func (s *Settings) checkRequests(c *checker) {
	if !IsToken(s.Method) {
		c.bad("method", 0, "%q is not an HTTP method", s.Method)
	}
	if _, err := s.codes(); err != nil {
		c.bad("success", 0, "%v", err)
	}
	c.duration("timeout", s.Timeout, 1)
	c.count("connections", int64(s.Connections), c.least("connections"), MaxCount, "at least 1")
	c.count("streams", int64(s.Streams), 1, MaxStreams, "at least 1")
	c.count("messages", int64(s.Messages), c.least("messages"), MaxCount, "at least 1")
	c.duration("message_interval", s.MessageGap, 0)
	if s.HTTP2 && s.H2C {
		c.bad("h2c", 0, "HTTP/2 over cleartext cannot be used with http2 (over TLS)")
	}
	switch s.Client {
	case "", LeanClient, NetHTTPClient:
	default:
		c.bad("client", 0, "want lean or nethttp, got %q", s.Client)
	}
	if _, err := ParseRealtime(s.Realtime.String()); err != nil {
		c.bad("realtime", 0, "%v", err)
	}
	c.count("threads", int64(s.Threads), 0, MaxThreads, "0 (latlab chooses) or more")
	if s.Samples < 0 {
		c.bad("samples", 0, "want 0 or more, got %d", s.Samples)
	}
}

// Conflicts returns every option of s that the others make meaningless,
// each as an *OptionError naming it by its spec key and the options it
// conflicts with by its Refs, joined like Validate's problems in this
// order: streams without HTTP/2, a client or no_keepalive with HTTP/2
// (which always goes through Go's http2 and keeps its connections),
// connections in sequential mode, and a seed without Poisson arrivals;
// or nil. given names, by spec key, the options given explicitly, since
// streams, client, connections and seed have defaults that are no
// conflict. Each would be ignored, so the load is refused instead.
func (s *Settings) Conflicts(given ...string) error {
	var errs []error
	bad := func(option, msg string, refs ...Ref) {
		errs = append(errs, &OptionError{Option: option, Msg: msg, Refs: refs})
	}
	h2 := s.HTTP2 || s.H2C
	if slices.Contains(given, "streams") && !h2 {
		bad("streams", "streams are HTTP/2's; give %s or %s too", Ref{Option: "http2"}, Ref{Option: "h2c"})
	}
	if slices.Contains(given, "client") && h2 {
		bad("client", "picks the HTTP/1.1 client; HTTP/2 always goes through Go's http2")
	}
	if s.NoKeepAlive && h2 {
		bad("no_keepalive", "HTTP/2 multiplexes requests on connections it keeps; drop %s", Ref{Option: "no_keepalive"})
	}
	if s.Realtime == RealtimeOn && (h2 || s.Client == NetHTTPClient) {
		bad("realtime", "makes the lean HTTP/1.1 client's event loops real-time threads; HTTP/2 and net/http have none")
	}
	if s.Threads > 0 && (h2 || s.Client == NetHTTPClient || s.Mode == ModeSequential) {
		bad("threads", "sets the lean HTTP/1.1 client's event loops; HTTP/2, net/http and sequential mode have none")
	}
	if slices.Contains(given, "connections") && s.Mode == ModeSequential {
		bad("connections", "%s uses one connection", Ref{"mode", string(ModeSequential)})
	}
	if slices.Contains(given, "seed") && s.Arrivals != PoissonArrivals {
		bad("seed", "seeds Poisson arrivals; give %s too", Ref{"arrivals", PoissonArrivals})
	}
	return errors.Join(errs...)
}

// Problems returns the problems err joins, err being an error of
// Validate, in their order.
func Problems(err error) []*OptionError {
	var out []*OptionError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if oe, ok := e.(*OptionError); ok {
				out = append(out, oe)
			}
		}
	}
	return out
}

// First returns the first problem of err, an error of Validate, or nil.
func First(err error) error {
	if ps := Problems(err); len(ps) > 0 {
		return ps[0]
	}
	return err
}

// rateOK reports whether r can be an open loop's rate under s: finite
// and above 0, or 0 when s.Stages ramp up from it.
func (s *Settings) rateOK(r float64) bool {
	return !math.IsInf(r, 0) && !math.IsNaN(r) && (r > 0 || r == 0 && len(s.Stages) > 0)
}

// isMode reports whether m is one of Modes, or "" (open).
func isMode(m Mode) bool { return m == "" || slices.Contains(Modes, m) }

// LevelOptions are the options, by spec key, that give a mode its levels
// and their shape; each mode takes some of them (see Mode.Takes).
var LevelOptions = []string{"rates", "concurrency", "ramp", "arrivals", "max_in_flight", "pool", "realtime"}

// RequestOptions are the options, by spec key, that describe the request
// when no targets or scenario file gives the requests.
var RequestOptions = []string{"path", "method", "headers", "body", "body_file"}

// Takes reports whether mode m takes option, one of LevelOptions: open
// mode takes rates, arrivals, max_in_flight, pool and realtime, closed mode
// concurrency, ramp mode concurrency and ramp, and sequential mode none of
// them.
func (m Mode) Takes(option string) bool {
	switch m {
	case ModeOpen, "":
		return slices.Contains([]string{"rates", "arrivals", "max_in_flight", "pool", "realtime"}, option)
	case ModeClosed:
		return option == "concurrency"
	case ModeRamp:
		return option == "concurrency" || option == "ramp"
	}
	return false
}

// Excludes returns the options, by spec key, that cannot be given beside
// option: beside rates, concurrency or ramp, the level options that no
// mode taking option takes (the options of a mode's levels); targets and
// scenario with each other and with RequestOptions, since the file gives
// the requests; body with body_file; and http2 (over TLS) with h2c.
func Excludes(option string) []string {
	var out []string
	switch {
	case option == "rates" || option == "concurrency" || option == "ramp":
		for _, o := range LevelOptions {
			if !slices.ContainsFunc(Modes, func(m Mode) bool { return m.Takes(option) && m.Takes(o) }) {
				out = append(out, o)
			}
		}
	case option == "targets":
		out = append([]string{"scenario"}, RequestOptions...)
	case option == "scenario":
		out = append([]string{"targets"}, RequestOptions...)
	case option == "body":
		out = []string{"body_file", "targets", "scenario"}
	case option == "body_file":
		out = []string{"body", "targets", "scenario"}
	case slices.Contains(RequestOptions, option):
		out = []string{"targets", "scenario"}
	case option == "http2":
		out = []string{"h2c"}
	case option == "h2c":
		out = []string{"http2"}
	}
	return out
}
