package record

import "time"

// ErrorClass says why a request failed before a whole response arrived.
// The zero value, OK, means a response was read in full.
type ErrorClass uint8

// The error classes, in the order they are reported.
const (
	OK       ErrorClass = iota
	Timeout             // no full response within the timeout
	Refused             // the connection was refused
	Reset               // the peer reset or closed the connection early
	TLS                 // handshake or certificate failure, or a TLS answer to plain text
	Protocol            // the response was not valid HTTP, or not the HTTP version asked for
	Other               // anything else (DNS, local resources, ...)
	numClasses
)

var classNames = [numClasses]string{"ok", "timeout", "refused", "reset", "tls", "protocol", "other"}

// String returns the class name used in output: "timeout", "reset", ...
func (c ErrorClass) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "other"
}

// ErrorClasses lists the failure classes (every class but OK) in report order.
func ErrorClasses() []ErrorClass {
	return []ErrorClass{Timeout, Refused, Reset, TLS, Protocol, Other}
}

// A Sample is what one request measured. Times are offsets from the run's
// start on the monotonic clock.
type Sample struct {
	Intended time.Duration // when the schedule wanted the request sent
	Sent     time.Duration // when its first byte was written
	Done     time.Duration // when its response was read in full, or it failed
	Connect  time.Duration // time to open a new connection; 0 when one was reused
	TLS      time.Duration // TLS handshake of a new connection; 0 otherwise
	// Wait is the time from the request's last byte written to the
	// response's first byte read, Read from that first byte to the last;
	// 0 when not measured (a failure, or a client that cannot see them).
	Wait     time.Duration
	Read     time.Duration
	Code     int   // status code; 0 when no response arrived
	BytesIn  int64 // response bytes read, headers included
	BytesOut int64 // request bytes written
	// MsgsOut and MsgsIn count a gRPC call's messages sent and received
	// (a unary call's are one each, when it succeeds); 0 for HTTP.
	MsgsOut, MsgsIn int32
	// ReplyGaps are the times between a server stream's consecutive
	// replies, in order: from the first reply to the second, and so on.
	// The session that filled the Sample may reuse the slice once Record
	// has returned.
	ReplyGaps []time.Duration
	Error     ErrorClass
	// Retries counts the times the request went again on a new
	// connection: a kept-alive one it was sent on had been closed by the
	// server before any byte of the response, so the target never saw it.
	Retries uint8
	Err     error // the failure behind Error, kept as an example of its class
	Step    int   // index of the scenario step; 0 without a scenario
}
