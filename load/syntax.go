package load

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A SyntaxError reports bad input in a targets or scenario file: where it
// is and what was expected. A zero Line means the file as a whole; an empty
// Field means the line as a whole.
type SyntaxError struct {
	File  string // name of the file, as given to the parser
	Line  int    // 1-based line number, or 0
	Field string // what was being read, such as "header" or "steps[0].url"
	Msg   string // what is wrong
}

// Error formats e as FILE:LINE: FIELD: MSG, leaving out the line when it is
// 0 and the field when it is empty.
func (e *SyntaxError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// validMethod reports whether s is a non-empty HTTP token (RFC 9110).
func validMethod(s string) bool {
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
}

// errorf returns a *SyntaxError at the line of n.
func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) error {
	return &SyntaxError{File: d.file, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// yamlLine matches the line number of a YAML parser error.
var yamlLine = regexp.MustCompile(`^line (\d+): `)

// yamlError turns an error of the YAML parser into a *SyntaxError.
func (d *decoder) yamlError(err error) error {
	e := &SyntaxError{File: d.file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := yamlLine.FindStringSubmatch(e.Msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = e.Msg[len(m[0]):]
	}
	return e
}

// mapping calls f with each key of the mapping n, the key's node and the
// value's, after checking that the key is a string met once. path names n.
func (d *decoder) mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node) error) error {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, path, "expected a mapping, got %s", describe(n))
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
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
		if err := f(key, k, n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// str decodes the scalar n as a string: a number, boolean or time stands
// for its text, but null does not.
func (d *decoder) str(n *yaml.Node, field string) (string, error) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
			return n.Value, nil
		}
	}
	return "", d.errorf(n, field, "expected a string, got %s", describe(n))
}

// deref returns the node that the alias n stands for, or n.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// describe names the kind of n for errors.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		switch t := n.ShortTag(); t {
		case "!!null":
			return "null"
		default:
			return t
		}
	}
	return "an unknown node"
}
