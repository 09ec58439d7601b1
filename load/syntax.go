package load

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
)

// A SyntaxError reports bad input in a targets or scenario file, as
// FILE:LINE: FIELD: MSG.
type SyntaxError = yamlfile.SyntaxError

// isToken reports whether s is a non-empty HTTP token (RFC 9110), as
// methods and header names are.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// isTokenByte reports whether c may appear in an HTTP token.
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
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

// parseURL parses s as an absolute http or https URL. On failure it returns
// a message saying why.
func parseURL(s string) (*url.URL, string) {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Sprintf("invalid URL %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Sprintf("expected an absolute http or https URL, got %q", s)
	}
	return u, ""
}

// decoder reads a scenario from YAML nodes, so that every error can name
// its line and field.
type decoder struct {
	file     string
	readFile func(string) ([]byte, error)
	lines    int // the number of the last line
}

// errorf returns a *SyntaxError at the line of n.
func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) error {
	return &SyntaxError{File: d.file, Line: d.line(n.Line), Field: field, Msg: fmt.Sprintf(format, args...)}
}

// line returns n, or the last line if n is past it: the YAML parser puts
// a value missing at the end of the file on the line after.
func (d *decoder) line(n int) int { return min(n, d.lines) }

// scenario decodes a scenario from the root node of its document.
func (d *decoder) scenario(root *yaml.Node) (*Scenario, error) {
	var steps *yaml.Node
	err := d.mapping(root, "", func(key string, k, v *yaml.Node) error {
		if key != "steps" {
			return d.errorf(k, key, "%s", yamlfile.UnknownField(key, "steps"))
		}
		steps = yamlfile.Deref(v)
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case steps == nil:
		return nil, d.errorf(root, "steps", "missing")
	case steps.Kind != yaml.SequenceNode:
		return nil, d.errorf(steps, "steps", "expected a sequence, got %s", yamlfile.Describe(steps))
	case len(steps.Content) == 0:
		return nil, d.errorf(steps, "steps", "expected at least one step")
	}
	s := &Scenario{}
	for i, n := range steps.Content {
		st, err := d.step(i, yamlfile.Deref(n))
		if err != nil {
			return nil, err
		}
		if slices.Contains(s.names, st.name) {
			return nil, d.errorf(n, fmt.Sprintf("steps[%d].name", i), "duplicate name %q", st.name)
		}
		s.steps = append(s.steps, st)
		s.names = append(s.names, st.name)
	}
	return s, nil
}

// step decodes step i from n and builds it once with zero Vars.
func (d *decoder) step(i int, n *yaml.Node) (*step, error) {
	path := fmt.Sprintf("steps[%d]", i)
	st := &step{name: "step" + strconv.Itoa(i+1), header: http.Header{}}
	var bodyFile *yaml.Node
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		var err error
		switch key {
		case "name":
			if st.name, err = d.str(v, field); err == nil && st.name == "" {
				err = d.errorf(v, field, "empty")
			}
		case "method":
			st.method, err = d.part(v, field, key)
		case "url":
			st.url, err = d.part(v, field, key)
		case "headers":
			err = d.headers(st, v, field)
		case "body":
			st.body, err = d.part(v, field, key)
		case "body_file":
			bodyFile = v
		default:
			err = d.errorf(k, field, "%s", yamlfile.UnknownField(key, "name", "method", "url", "headers", "body", "body_file"))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if st.url == nil {
		return nil, d.errorf(n, path+".url", "missing")
	}
	if st.method == nil {
		st.method = &part{name: "method", field: path + ".method", line: n.Line, text: http.MethodGet}
	}
	if bodyFile != nil {
		if err := d.bodyFile(st, bodyFile, path+".body_file"); err != nil {
			return nil, err
		}
	}
	req, err := st.build(Vars{})
	if err != nil {
		if pe := (*partError)(nil); errors.As(err, &pe) {
			return nil, &SyntaxError{File: d.file, Line: pe.p.line, Field: pe.p.field, Msg: pe.msg}
		}
		return nil, d.errorf(n, path, "%v", err)
	}
	if st.url.tmpl == nil {
		st.u = req.URL
	}
	if st.method.tmpl == nil && st.url.tmpl == nil && len(st.dyn) == 0 &&
		(st.host == nil || st.host.tmpl == nil) && (st.body == nil || st.body.tmpl == nil) {
		st.static = req
	}
	return st, nil
}

// headers decodes the headers of st from n.
func (d *decoder) headers(st *step, n *yaml.Node, path string) error {
	return d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		if !isToken(key) {
			return d.errorf(k, field, "invalid header name")
		}
		ck := http.CanonicalHeaderKey(key)
		dup := st.header[ck] != nil || ck == "Host" && st.host != nil ||
			slices.ContainsFunc(st.dyn, func(h dynHeader) bool { return h.key == ck })
		if dup {
			return d.errorf(k, field, "duplicate header")
		}
		p, err := d.part(v, field, "headers."+key)
		switch {
		case err != nil:
			return err
		case ck == "Host":
			st.host = p
		case p.tmpl != nil:
			st.dyn = append(st.dyn, dynHeader{ck, p})
		case !validHeaderValue(p.text):
			return d.errorf(v, field, "invalid value %q", p.text)
		default:
			st.header[ck] = []string{p.text}
		}
		return nil
	})
}

// bodyFile reads the body of st from the file that n names.
func (d *decoder) bodyFile(st *step, n *yaml.Node, field string) error {
	if st.body != nil {
		return d.errorf(n, field, "cannot be used with body")
	}
	path, err := d.str(n, field)
	if err != nil {
		return err
	}
	if path == "" {
		return d.errorf(n, field, "empty")
	}
	data, err := d.readFile(path)
	if err != nil {
		return d.errorf(n, field, "%v", err)
	}
	st.body, err = newPart("body_file", field, yamlfile.Deref(n).Line, string(data))
	if err != nil {
		return d.errorf(n, field, "%v", err)
	}
	return nil
}

// part decodes the string n as a part.
func (d *decoder) part(n *yaml.Node, field, name string) (*part, error) {
	s, err := d.str(n, field)
	if err != nil {
		return nil, err
	}
	p, err := newPart(name, field, yamlfile.Deref(n).Line, s)
	if err != nil {
		return nil, d.errorf(n, field, "%v", err)
	}
	return p, nil
}

// mapping calls f with each key of the mapping n, the key's node and the
// value's, after checking that the key is a string met once. path names n.
func (d *decoder) mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node) error) error {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, path, "expected a mapping, got %s", yamlfile.Describe(n))
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := yamlfile.Deref(n.Content[i])
		if k.ShortTag() == "!!merge" {
			return d.errorf(k, path, "merge keys (<<) are not supported")
		}
		key, err := d.str(k, path)
		if err != nil {
			return err
		}
		if seen[key] {
			return d.errorf(k, strings.TrimPrefix(path+"."+key, "."), "duplicate field")
		}
		seen[key] = true
		v := n.Content[i+1]
		if v.Kind == yaml.ScalarNode && v.Value == "" && v.ShortTag() == "!!null" {
			// A missing value sits at the next token; point at its key.
			v.Line = k.Line
		}
		if err := f(key, k, v); err != nil {
			return err
		}
	}
	return nil
}

// str decodes the scalar n as a string: a number, boolean or time stands
// for its text, but null does not.
func (d *decoder) str(n *yaml.Node, field string) (string, error) {
	n = yamlfile.Deref(n)
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
			return n.Value, nil
		}
	}
	return "", d.errorf(n, field, "expected a string, got %s", yamlfile.Describe(n))
}
