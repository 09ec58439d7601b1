package load

import (
	"net/http"
	"net/url"
)

// A Request is one HTTP request to send. Header holds every header but Host
// and Content-Length, which come from Host (or URL) and Body.
//
// A request whose URL is grpc://HOST:PORT/package.Service/Method (grpcs://
// over TLS) is a gRPC call of that method instead (Options.Messages says
// what a streaming one sends): Body is its message in protobuf's JSON
// mapping, Header its metadata; Method and Host are not used.
type Request struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
	Host   string // Host header when it differs from URL.Host
	Step   int    // index of the scenario step it belongs to

	wire []byte     // HTTP/1.1 encoding, built once by prepare; a gRPC call's encoded message
	key  string     // scheme and address to dial, built once by prepare
	user *User      // whose client certificate it presents over https; nil for none
	rpc  *rpcMethod // a gRPC call's method, resolved before the load; nil for HTTP, or when built per iteration
}
