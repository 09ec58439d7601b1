package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/latlab/latlab/record"
)

// errProtocol marks a response that is not valid HTTP.
var errProtocol = errors.New("malformed response")

// protocolError wraps a parse failure so classify sees it as a protocol error.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return "malformed response: " + e.msg }
func (e *protocolError) Unwrap() error { return errProtocol }

// errTLS marks a failure that is the server's TLS, or its lack of it: a
// TLS answer to a plain-text request, a handshake the server cut short.
var errTLS = errors.New("tls")

// tlsAnswerError is the error of a server that answered a plain-text
// request with a TLS record: it speaks TLS on that port.
type tlsAnswerError struct {
	first []byte // what arrived
	fix   string // what to use instead
}

func (e *tlsAnswerError) Error() string {
	return fmt.Sprintf("tls: server speaks TLS (it answered with the TLS record %.8q): %s", e.first, e.fix)
}

func (e *tlsAnswerError) Unwrap() error { return errTLS }

// tlsAnswer is the error of a response to a plain-text HTTP/1.1 request
// that starts with first, a TLS record.
func tlsAnswer(first []byte) error {
	return &tlsAnswerError{first: bytes.Clone(first[:min(len(first), 8)]), fix: "use an https:// URL"}
}

// looksTLS reports whether b starts with a TLS record header: a record
// type (change_cipher_spec to heartbeat) and a version 3.x.
func looksTLS(b []byte) bool {
	return len(b) >= 3 && b[0] >= 0x14 && b[0] <= 0x18 && b[1] == 3 && b[2] <= 4
}

// tlsClosedError is a TLS handshake the server ended by closing the
// connection without an alert: what a server that does not speak TLS on
// that port does to a ClientHello.
type tlsClosedError struct{ err error }

func (e *tlsClosedError) Error() string {
	return fmt.Sprintf("tls: the server closed the connection during the handshake (%v): does it speak TLS on this port?", e.err)
}

func (e *tlsClosedError) Unwrap() []error { return []error{e.err, errTLS} }

// tlsHandshakeError names the error of a TLS handshake: the server closing
// the connection is a TLS failure, not a reset of a request.
func tlsHandshakeError(err error) error {
	if err != nil && (isClosed(err) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return &tlsClosedError{err}
	}
	return err
}

// netHTTPProtocol are fragments of the errors net/http and x/net/http2
// return for malformed responses; they carry no sentinel to test for.
var netHTTPProtocol = []string{
	"malformed HTTP", "bad Content-Length", "invalid byte in chunk length",
	"malformed chunked encoding", "chunked encoding", "response headers exceeded",
	"too many transfer encodings", "unsupported transfer encoding",
	"invalid header field", "PROTOCOL_ERROR", "protocol error",
}

// classify maps a transport error to the class it is reported under.
func classify(err error) record.ErrorClass {
	if err == nil {
		return record.OK
	}
	var (
		netErr   net.Error
		recErr   tls.RecordHeaderError
		alertErr tls.AlertError
		certErr  *tls.CertificateVerificationError
		unkAuth  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	var op *net.OpError
	switch {
	case errors.Is(err, errProtocol):
		return record.Protocol
	case errors.Is(err, errTLS):
		return record.TLS
	case errors.As(err, &op) && op.Op == "remote error": // a TLS alert; crypto/tls's alert type is unexported
		return record.TLS
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return record.Timeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return record.Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return record.Reset
	case errors.As(err, &recErr), errors.As(err, &alertErr), errors.As(err, &certErr),
		errors.As(err, &unkAuth), errors.As(err, &hostErr), errors.As(err, &invalid):
		return record.TLS
	case errors.As(err, &netErr) && netErr.Timeout():
		return record.Timeout
	}
	msg := err.Error()
	for _, frag := range netHTTPProtocol {
		if strings.Contains(msg, frag) {
			return record.Protocol
		}
	}
	return record.Other
}
