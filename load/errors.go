package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
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
	switch {
	case errors.Is(err, errProtocol):
		return record.Protocol
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
