package load

import (
	"crypto/tls"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// userAgent is sent unless the request sets its own.
const userAgent = "latlab"

// stripCRLF keeps a header value on its line.
var stripCRLF = strings.NewReplacer("\r", "", "\n", "")

// prepare builds req's HTTP/1.1 encoding and dial key once, so that the
// lean transport sends the same bytes for every use of a shared request.
// Call it before req is shared between goroutines.
func prepare(req *Request, o Options) {
	req.wire = appendWire(nil, req, o.NoKeepAlive)
	req.key = dialKey(req)
}

// dialKey names the connections req can use: its scheme and address, and
// for an https request with a user's client certificate, that user: the
// certificate is presented once, in the handshake, so such connections
// are the user's alone.
func dialKey(req *Request) string {
	key := req.URL.Scheme + "://" + dialAddr(req)
	if req.clientCert() != nil {
		key += " as " + req.user.Name
	}
	return key
}

// clientCert returns the client certificate req presents: its user's, for
// an https URL; nil for none.
func (req *Request) clientCert() *tls.Certificate {
	if req.user == nil || req.user.cert == nil || req.URL.Scheme != "https" {
		return nil
	}
	return req.user.cert
}

// keyOf returns req's dial key: the one prepare built, or a new one.
func keyOf(req *Request) string {
	if req.key != "" {
		return req.key
	}
	return dialKey(req)
}

// appendWire appends the HTTP/1.1 encoding of req to b.
func appendWire(b []byte, req *Request, closeConn bool) []byte {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, req.URL.RequestURI()...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	b = append(b, host...)
	b = append(b, "\r\n"...)
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	hasUA := false
	for _, k := range keys {
		ck := http.CanonicalHeaderKey(k)
		switch ck {
		case "Host", "Content-Length", "Connection", "Transfer-Encoding":
			continue
		case "User-Agent":
			hasUA = true
		}
		for _, v := range req.Header[k] {
			b = append(b, ck...)
			b = append(b, ": "...)
			b = append(b, stripCRLF.Replace(v)...)
			b = append(b, "\r\n"...)
		}
	}
	if !hasUA {
		b = append(b, "User-Agent: "+userAgent+"\r\n"...)
	}
	if len(req.Body) > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(req.Body)), 10)
		b = append(b, "\r\n"...)
	}
	if closeConn {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, req.Body...)
}

// dialAddr returns the host:port to dial for u's scheme and host.
func dialAddr(req *Request) string {
	host := req.URL.Host
	if req.URL.Port() != "" {
		return host
	}
	port := "80"
	if req.URL.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(req.URL.Hostname(), "[]"), port)
}
