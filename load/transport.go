package load

import (
	"context"
	"crypto/tls"
	"time"

	"github.com/latlab/latlab/record"
)

// A Transport carries requests to the target. Its sessions share a pool of
// at most Options.Connections connections.
type Transport interface {
	// Session returns a new session, to be used by one goroutine at a time.
	Session() Session
	// Close closes idle connections. Sessions must be closed first.
	Close() error
}

// A Session sends one request at a time.
type Session interface {
	// Do sends req and reads its response in full, discarding the body. It
	// fills s's Sent, Done (on the clock of Now), Connect, TLS, Code,
	// BytesIn, BytesOut and Error; a failure is recorded in s, never
	// returned. Do gives up after Options.Timeout or when ctx ends.
	Do(ctx context.Context, req *Request, s *record.Sample)
	// Close releases the session's connection.
	Close()
}

// Options configure a Transport. The zero value means HTTP/1.1 with
// keep-alive, a 30 s timeout and no cap on connections.
type Options struct {
	Timeout     time.Duration // per request, from send to the last body byte; 0 means DefaultTimeout
	NoKeepAlive bool          // one connection per request
	Connections int           // cap on open connections; 0 means no cap
	HTTP2       bool          // HTTP/2 over TLS, negotiated with ALPN
	H2C         bool          // HTTP/2 over cleartext TCP, with prior knowledge
	Streams     int           // concurrent streams per HTTP/2 connection; 0 means DefaultStreams
	UnixSocket  string        // dial this socket instead of the URL's host
	TLS         *tls.Config   // for https URLs; nil means the system roots
	NetHTTP     bool          // use net/http for HTTP/1.1 too (the reference path)
	// Proto lists the .proto files that give gRPC methods' types, found
	// in ImportPaths (each file's own folder when none); none means each
	// server's reflection service is asked.
	Proto       []string
	ImportPaths []string
	// ProtoFiles, when set, holds every file compiling Proto reads, by
	// path (see Inputs.Proto); nothing is read from disk then.
	ProtoFiles map[string][]byte
	// Messages is how many messages a client- or bidirectional-streaming
	// gRPC call sends (0 means 1), MessageGap the time between them.
	Messages   int
	MessageGap time.Duration
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// epoch is the origin of the package's monotonic clock.
var epoch = time.Now()

// Now returns the time on the package's monotonic clock, the time base of
// the Sent and Done fields a Session fills.
func Now() time.Duration { return time.Since(epoch) }
