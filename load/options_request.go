package load

import (
	"net/http"
	"net/url"
)

// Request returns the one request s describes, sent to base: base with
// s.Path, when given, in place of its path and query; s.Method; s.Headers,
// Host among them setting the Host header; and the body read from
// BodyFile (see Inputs), else Body. Each call returns a new request.
func (s *Settings) Request(base *url.URL) *Request {
	u := *base
	if s.Path != "" {
		if pu, err := url.Parse(s.Path); err == nil { // checked when read
			u.Path, u.RawPath, u.RawQuery = pu.Path, pu.RawPath, pu.RawQuery
		}
	}
	req := &Request{Method: s.Method, URL: &u, Header: make(http.Header, len(s.Headers))}
	for k, v := range s.Headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header[k] = []string{v}
	}
	switch in := s.Inputs(); {
	case in.Body != nil:
		req.Body = in.Body
	case s.Body != "":
		req.Body = []byte(s.Body)
	}
	return req
}
