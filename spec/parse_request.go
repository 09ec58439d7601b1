package spec

import (
	"net/http"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/load"
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
	d.Fields(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		ck := http.CanonicalHeaderKey(key)
		dup := seen[ck]
		seen[ck] = true
		val, ok := d.str(v, f)
		switch {
		case !load.IsToken(key):
			d.errorf(k, f, "invalid header name")
		case dup:
			d.errorf(k, f, "duplicate header %s", ck)
		case !ok:
		case !load.ValidHeaderValue(val):
			d.errorf(v, f, "invalid value %q", val)
		case ck == "Host" && val == "":
			d.errorf(v, f, "empty")
		default:
			h[ck] = val
			return true
		}
		return false
	})
	if len(h) == 0 {
		return nil
	}
	return h
}
