package load

import (
	"fmt"
	"os"
)

// An OptionError says why an option is wrong (see Settings.Validate) or
// does not fit the requests it would apply to (see Check). Option is the
// option's name without dashes ("http2"), as a command line flag or a spec
// field gives it.
type OptionError struct {
	Option string
	Item   int    // the item at fault of a list (Rates, Concurrency), counting from 1; 0 means the option as a whole
	Msg    string // with Refs, a format naming each at a %s verb (see Text)
	Refs   []Ref  // the other options Msg names
}

// A Ref names an option by its spec key and, when a rule is about one of
// its values, that value: {arrivals poisson}, {mode sequential}.
type Ref struct{ Option, Value string }

// String names r as a spec's load: mapping gives it: "http2",
// "arrivals: poisson".
func (r Ref) String() string {
	if r.Value == "" {
		return r.Option
	}
	return r.Option + ": " + r.Value
}

func (e *OptionError) Error() string {
	if e.Item > 0 {
		return fmt.Sprintf("%s[%d]: %s", e.Option, e.Item-1, e.Text(Ref.String))
	}
	return e.Option + ": " + e.Text(Ref.String)
}

// Text returns e's message with the options it refers to named by name,
// as a command line's flags or a spec's fields spell them.
func (e *OptionError) Text(name func(Ref) string) string {
	if len(e.Refs) == 0 {
		return e.Msg
	}
	a := make([]any, len(e.Refs))
	for i, r := range e.Refs {
		a[i] = name(r)
	}
	return fmt.Sprintf(e.Msg, a...)
}

// Check finds, before anything is sent, the options that cannot work with
// src's requests: HTTP/2 over TLS (o.HTTP2) to an http URL, h2c to an https
// one, a unix socket that is not there, users' client certificates on a
// client other than the lean HTTP/1.1 one, and TLS settings (tf) when no
// request is https. Every request of every attack would fail or ignore the
// option, so Attack refuses to start (it checks without tf, which it does
// not know). A scenario's steps are checked as they build for the first
// iteration.
func Check(src Source, o Options, tf TLSFiles) error {
	if src == nil {
		return nil
	}
	https := false
	for _, req := range sample(src) {
		switch s := req.URL.Scheme; {
		case s == schemeGRPCS:
			https = true
		case s == schemeGRPC:
		case o.HTTP2 && s != "https":
			return &OptionError{Option: "http2", Msg: fmt.Sprintf("HTTP/2 over TLS needs an https URL, got %s (h2c is HTTP/2 over cleartext http)", req.URL.Redacted())}
		case o.H2C && s != "http":
			return &OptionError{Option: "h2c", Msg: fmt.Sprintf("h2c is HTTP/2 over cleartext and needs an http URL, got %s (HTTP/2 over TLS is http2)", req.URL.Redacted())}
		case s == "https":
			https = true
		}
	}
	if sc, ok := src.(*Scenario); ok && sc.clientCerts() && (o.HTTP2 || o.H2C || o.NetHTTP) {
		opt := "client"
		switch {
		case o.HTTP2:
			opt = "http2"
		case o.H2C:
			opt = "h2c"
		}
		return &OptionError{Option: opt, Msg: "a scenario user's client certificate needs the lean HTTP/1.1 client, which keeps each user's connections apart"}
	}
	if o.UnixSocket != "" {
		fi, err := os.Stat(o.UnixSocket)
		switch {
		case err != nil:
			return &OptionError{Option: "unix-socket", Msg: err.Error()}
		case fi.Mode()&os.ModeSocket == 0:
			return &OptionError{Option: "unix-socket", Msg: o.UnixSocket + " is not a unix socket"}
		}
	}
	if opt := tf.option(); opt != "" && !https {
		return &OptionError{Option: opt, Msg: "TLS settings apply to https and grpcs URLs, and every request is http or grpc"}
	}
	return nil
}

// option names the first TLS setting f gives, or "".
func (f TLSFiles) option() string {
	switch {
	case f.Insecure:
		return "insecure"
	case f.CACert != "":
		return "cacert"
	case f.Cert != "":
		return "cert"
	case f.Key != "":
		return "key"
	}
	return ""
}

// sample returns the requests src sends: all of a Static's, and each
// scenario step's as it builds for the first iteration. Steps that fail to
// build are left out; they fail when sent.
func sample(src Source) []*Request {
	if s, ok := src.(Static); ok {
		return s
	}
	var out []*Request
	for i := range src.Steps() {
		if req, err := src.Request(i, Vars{}); err == nil && req.URL != nil {
			out = append(out, req)
		}
	}
	return out
}
