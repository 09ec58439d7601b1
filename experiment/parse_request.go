package experiment

import (
	"net/http"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"
)

// path decodes the scalar n as the path and query of a URL.
func (d *decoder) path(n *yaml.Node, field string) (string, bool) {
	s, ok := d.text(n, field)
	if !ok {
		return "", false
	}
	u, err := url.Parse(s)
	switch {
	case !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//"):
		d.errorf(n, field, "%q does not start with a single /", s)
	case err != nil:
		d.errorf(n, field, "invalid path %q", s)
	case u.Fragment != "" || strings.Contains(s, "#"):
		d.errorf(n, field, "%q has a fragment, which is never sent", s)
	default:
		return s, true
	}
	return "", false
}

// headers decodes a mapping of header names to values.
func (d *decoder) headers(n *yaml.Node, path string) map[string]string {
	h := map[string]string{}
	seen := map[string]bool{}
	d.mapping(n, path, func(key string, k, v *yaml.Node) {
		f := join(path, key)
		ck := http.CanonicalHeaderKey(key)
		dup := seen[ck]
		seen[ck] = true
		val, ok := d.str(v, f)
		switch {
		case !isToken(key):
			d.errorf(k, f, "invalid header name")
		case dup:
			d.errorf(k, f, "duplicate header %s", ck)
		case !ok:
		case !validHeaderValue(val):
			d.errorf(v, f, "invalid value %q", val)
		case ck == "Host" && val == "":
			d.errorf(v, f, "empty")
		default:
			h[ck] = val
		}
	})
	if len(h) == 0 {
		return nil
	}
	return h
}

// isToken reports whether s is a non-empty HTTP token (RFC 9110), as
// methods and header names are.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s can be sent as a header value: no
// control characters but tab.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
