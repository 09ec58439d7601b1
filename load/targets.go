package load

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// ReadTargets reads the targets file at path; see ParseTargets for the
// format. Body files are found relative to the folder of path.
func ReadTargets(path string) ([]*Request, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading targets: %w", err)
	}
	return ParseTargets(path, data, readRelative(path))
}

// ParseTargets parses data, a targets file in vegeta's http format, into
// requests. The file is named name in errors; readBody reads the body files
// that "@path" lines name, and nil means os.ReadFile.
//
// Targets are separated by blank lines or start on any line of the form
// "METHOD URL", where METHOD is an HTTP token and URL an absolute http or
// https URL. Zero or more "Name: value" header lines follow, in any
// number, then optionally one "@path" line whose file is the body. A Host
// header sets the request's Host. Lines starting with "#" are comments;
// leading and trailing white space, including the CR of CRLF, is ignored.
//
//	POST http://127.0.0.1:8080/objects
//	Content-Type: application/json
//	@create.json
//
//	GET http://127.0.0.1:8080/objects/1
//
// Every error is a *SyntaxError naming the line; a file without targets is
// an error too.
func ParseTargets(name string, data []byte, readBody func(path string) ([]byte, error)) ([]*Request, error) {
	if readBody == nil {
		readBody = os.ReadFile
	}
	var (
		reqs    []*Request
		cur     *Request // the target being read, nil between targets
		hasBody bool     // cur's body line has been read
	)
	fail := func(line int, field, format string, args ...any) ([]*Request, error) {
		return nil, &SyntaxError{File: name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	for i, raw := range strings.Split(string(data), "\n") {
		n := i + 1
		line := strings.Trim(raw, asciiSpace)
		switch {
		case line == "":
			cur = nil
			continue
		case line[0] == '#':
			continue
		case cur == nil || isRequestLine(line):
			f := fields(line)
			if len(f) != 2 {
				return fail(n, "target", "expected \"METHOD URL\", got %q", line)
			}
			if !IsToken(f[0]) {
				return fail(n, "method", "invalid method %q", f[0])
			}
			u, msg := parseURL(f[1])
			if msg != "" {
				return fail(n, "url", "%s", msg)
			}
			cur = &Request{Method: f[0], URL: u, Header: http.Header{}}
			hasBody = false
			reqs = append(reqs, cur)
		case hasBody:
			return fail(n, "", "expected a blank line or a new target after the body, got %q", line)
		case line[0] == '@':
			path := strings.Trim(line[1:], asciiSpace)
			if path == "" {
				return fail(n, "body", "expected a file name after \"@\"")
			}
			body, err := readBody(path)
			if err != nil {
				return fail(n, "body", "%v", err)
			}
			cur.Body = body
			hasBody = true
		default:
			k, v, ok := strings.Cut(line, ":")
			k, v = strings.Trim(k, asciiSpace), strings.Trim(v, asciiSpace)
			switch {
			case !ok || k == "":
				return fail(n, "header", "expected \"Name: value\", got %q", line)
			case !IsToken(k):
				return fail(n, "header", "invalid name %q", k)
			case !ValidHeaderValue(v):
				return fail(n, "header", "invalid value %q", v)
			case http.CanonicalHeaderKey(k) != "Host":
				cur.Header.Add(k, v)
			case cur.Host != "":
				return fail(n, "header", "duplicate Host header")
			case v == "":
				return fail(n, "header", "empty Host header")
			default:
				cur.Host = v
			}
		}
	}
	if len(reqs) == 0 {
		return fail(0, "", "no targets")
	}
	return reqs, nil
}

// asciiSpace is the white space the parsers trim.
const asciiSpace = " \t\r\v\f"

// fields splits s around runs of ASCII white space.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r < 0x80 && strings.IndexByte(asciiSpace, byte(r)) >= 0
	})
}

// isRequestLine reports whether line, met where a header could be, starts
// a new target instead: two fields, the first a token. A header's name
// ends in ':', which no token contains.
func isRequestLine(line string) bool {
	f := fields(line)
	return len(f) == 2 && IsToken(f[0]) && f[1][0] != ':'
}

// readRelative returns a function that reads files relative to the folder
// of the file at path, or as given when absolute.
func readRelative(path string) func(string) ([]byte, error) {
	dir := filepath.Dir(path)
	return func(name string) ([]byte, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return os.ReadFile(name)
	}
}
