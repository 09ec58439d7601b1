package load

import (
	"errors"
	"io/fs"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// flat is a Request in a form cmp can compare.
type flat struct {
	Method, URL, Host string
	Header            http.Header
	Body              string
	Step              int
}

func flatten(t *testing.T, reqs ...*Request) []flat {
	t.Helper()
	var out []flat
	for _, r := range reqs {
		out = append(out, flat{r.Method, r.URL.String(), r.Host, r.Header, string(r.Body), r.Step})
	}
	return out
}

// fakeFiles reads files from a map, failing like os.ReadFile for others.
func fakeFiles(files map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
}

func TestSyntaxError(t *testing.T) {
	tests := []struct {
		err  SyntaxError
		want string
	}{
		{SyntaxError{File: "t.txt", Line: 3, Field: "header", Msg: "bad"}, "t.txt:3: header: bad"},
		{SyntaxError{File: "t.txt", Line: 3, Field: "", Msg: "bad"}, "t.txt:3: bad"},
		{SyntaxError{File: "t.txt", Line: 0, Field: "steps", Msg: "bad"}, "t.txt: steps: bad"},
		{SyntaxError{File: "t.txt", Line: 0, Field: "", Msg: "bad"}, "t.txt: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestParseTargets(t *testing.T) {
	const u = "http://127.0.0.1:8080/objects"
	files := fakeFiles(map[string]string{"body.json": `{"a":1}`, "dir/b.bin": "\x00\x01"})
	tests := []struct {
		name string
		in   string
		want []flat
	}{
		{"one", "GET " + u, []flat{{Method: "GET", URL: u, Header: http.Header{}}}},
		{"headers", "POST " + u + "\nContent-Type: text/plain\nx-trace: a\nX-Trace:b\nX-Empty:\nX-URL: http://a:1/b\n",
			[]flat{{Method: "POST", URL: u, Header: http.Header{
				"Content-Type": {"text/plain"}, "X-Trace": {"a", "b"}, "X-Empty": {""}, "X-Url": {"http://a:1/b"},
			}}}},
		{"host", "GET " + u + "\nhost: api.example.test", []flat{{Method: "GET", URL: u, Host: "api.example.test", Header: http.Header{}}}},
		{"body", "PUT " + u + "\n@ body.json \n\nPATCH " + u + "\n@dir/b.bin", []flat{
			{Method: "PUT", URL: u, Header: http.Header{}, Body: `{"a":1}`},
			{Method: "PATCH", URL: u, Header: http.Header{}, Body: "\x00\x01"},
		}},
		{"comments and blank lines", "# first\n\n\nGET " + u + "\n# inside\nA: 1\n\n\n# last\n", []flat{
			{Method: "GET", URL: u, Header: http.Header{"A": {"1"}}},
		}},
		{"crlf and white space", "  GET  " + u + " \r\n\tA:  1 \r\n \r\nHEAD " + u + "\r\n", []flat{
			{Method: "GET", URL: u, Header: http.Header{"A": {"1"}}},
			{Method: "HEAD", URL: u, Header: http.Header{}},
		}},
		{"no blank lines", "GET " + u + "/1\nGET " + u + "/2\nA: 1\nPOST " + u + "\n@body.json\nDELETE " + u + "/1", []flat{
			{Method: "GET", URL: u + "/1", Header: http.Header{}},
			{Method: "GET", URL: u + "/2", Header: http.Header{"A": {"1"}}},
			{Method: "POST", URL: u, Header: http.Header{}, Body: `{"a":1}`},
			{Method: "DELETE", URL: u + "/1", Header: http.Header{}},
		}},
		{"spaces around colon", "GET " + u + "\nA : 1", []flat{{Method: "GET", URL: u, Header: http.Header{"A": {"1"}}}}},
		{"https and query", "OPTIONS https://[::1]:8443/a?b=c#d", []flat{
			{Method: "OPTIONS", URL: "https://[::1]:8443/a?b=c#d", Header: http.Header{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, err := ParseTargets("t.txt", []byte(tt.in), files)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, flatten(t, reqs...)); diff != "" {
				t.Errorf("ParseTargets mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTargetsErrors(t *testing.T) {
	const get = "GET http://127.0.0.1:8080/\n"
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "t.txt: no targets"},
		{"only comments", "# a\n\n  \n# b\n", "t.txt: no targets"},
		{"no url", "GET", `t.txt:1: target: expected "METHOD URL", got "GET"`},
		{"three fields", "GET http://a/ b", `t.txt:1: target: expected "METHOD URL", got "GET http://a/ b"`},
		{"bad method", "G(T http://a/", `t.txt:1: method: invalid method "G(T"`},
		{"relative url", "\nGET /objects", `t.txt:2: url: expected an absolute http or https URL, got "/objects"`},
		{"ftp url", "GET ftp://a/", `t.txt:1: url: expected an absolute http or https URL, got "ftp://a/"`},
		{"no host", "GET http:///a", `t.txt:1: url: expected an absolute http or https URL, got "http:///a"`},
		{"bad url", "GET http://[::1", `t.txt:1: url: invalid URL "http://[::1": missing ']' in host`},
		{"second target bad", get + "\nGET http://a/\nPOST /x", `t.txt:4: url: expected an absolute http or https URL, got "/x"`},
		{"header without colon", get + "# a comment\nfoo", `t.txt:3: header: expected "Name: value", got "foo"`},
		{"header without name", get + ": v", `t.txt:2: header: expected "Name: value", got ": v"`},
		{"header name with space", get + "Foo Bar: v", `t.txt:2: header: invalid name "Foo Bar"`},
		{"header value with control", get + "A: b\x00c", `t.txt:2: header: invalid value "b\x00c"`},
		{"two hosts", get + "Host: a\nHost: b", `t.txt:3: header: duplicate Host header`},
		{"empty host", get + "Host:", `t.txt:2: header: empty Host header`},
		{"body without path", get + "@ ", `t.txt:2: body: expected a file name after "@"`},
		{"body missing", get + "@missing.json", `t.txt:2: body: open missing.json: file does not exist`},
		{"header after body", get + "@body.json\nA: 1", `t.txt:3: expected a blank line or a new target after the body, got "A: 1"`},
		{"two bodies", get + "@body.json\n@body.json", `t.txt:3: expected a blank line or a new target after the body, got "@body.json"`},
	}
	files := fakeFiles(map[string]string{"body.json": "{}"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, err := ParseTargets("t.txt", []byte(tt.in), files)
			if err == nil {
				t.Fatalf("ParseTargets(%q) = %d targets, want error %q", tt.in, len(reqs), tt.want)
			}
			wantSyntaxError(t, "ParseTargets", tt.in, err, tt.want)
		})
	}
}

// wantSyntaxError checks that err, what fn returned for in, is a
// *SyntaxError that reads want.
func wantSyntaxError(t *testing.T, fn, in string, err error, want string) {
	t.Helper()
	if got := err.Error(); got != want {
		t.Errorf("%s(%q) error:\n got %s\nwant %s", fn, in, got, want)
	}
	if se := (*SyntaxError)(nil); !errors.As(err, &se) {
		t.Errorf("error is %T, want *SyntaxError", err)
	}
}

func TestReadTargets(t *testing.T) {
	const u = "http://127.0.0.1:8080/objects"
	json := http.Header{"Content-Type": {"application/json"}}
	tests := []struct {
		path string
		want []flat
	}{
		{"testdata/targets/crud.txt", []flat{
			{Method: "POST", URL: u, Header: http.Header{"Content-Type": {"application/json"}, "X-Trace": {"a", "b"}}, Body: "{\"name\":\"cm-1\"}\n"},
			{Method: "GET", URL: u + "/cm-1", Host: "api.example.test", Header: http.Header{}},
			{Method: "GET", URL: u + "/cm-2", Header: http.Header{}},
			{Method: "DELETE", URL: u + "/cm-1", Header: http.Header{}},
		}},
		{"testdata/targets/crlf.txt", []flat{
			{Method: "PUT", URL: u + "/cm-1", Header: json, Body: "{\"name\":\"cm-1\"}\n"},
			{Method: "GET", URL: u + "/cm-1", Header: http.Header{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			reqs, err := ReadTargets(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, flatten(t, reqs...)); diff != "" {
				t.Errorf("ReadTargets(%q) mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// TestReadErrors checks that ReadTargets and ReadScenario name the file
// they cannot read, and the file, line and field that names a body file
// they cannot read.
func TestReadErrors(t *testing.T) {
	readTargets := func(path string) error { _, err := ReadTargets(path); return err }
	readScenario := func(path string) error { _, err := ReadScenario(path); return err }
	tests := []struct {
		fn   string
		read func(path string) error
		path string
		want string
	}{
		{"ReadTargets", readTargets, "testdata/targets/nope.txt", "reading targets: open testdata/targets/nope.txt: no such file or directory"},
		{"ReadTargets", readTargets, "testdata/targets/missing-body.txt", "testdata/targets/missing-body.txt:2: body: open testdata/targets/missing.json: no such file or directory"},
		{"ReadScenario", readScenario, "testdata/scenario/nope.yaml", "reading scenario: open testdata/scenario/nope.yaml: no such file or directory"},
		{"ReadScenario", readScenario, "testdata/scenario/missing-body.yaml", "testdata/scenario/missing-body.yaml:4: steps[0].body_file: open testdata/scenario/missing.json: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			err := tt.read(tt.path)
			if err == nil {
				t.Fatalf("%s(%q) succeeded, want error %q", tt.fn, tt.path, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("%s(%q) error:\n got %s\nwant %s", tt.fn, tt.path, got, tt.want)
			}
		})
	}
}
