package yamlfile

import (
	"errors"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSyntaxError(t *testing.T) {
	tests := []struct {
		e    SyntaxError
		want string
	}{
		{SyntaxError{"a.yaml", 3, "steps[0].url", "missing"}, "a.yaml:3: steps[0].url: missing"},
		{SyntaxError{"a.yaml", 0, "", "no steps"}, "a.yaml: no steps"},
		{SyntaxError{"a.yaml", 7, "", "bad line"}, "a.yaml:7: bad line"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{{"", 1}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"a\r\nb\rc\u2028d", 4}}
	for _, tt := range tests {
		if got := Lines([]byte(tt.in)); got != tt.want {
			t.Errorf("Lines(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestParseError(t *testing.T) {
	var n yaml.Node
	err := yaml.Unmarshal([]byte("a: [1, 2\nb: 3\n"), &n)
	if err == nil {
		t.Fatal("want a parse error")
	}
	e := ParseError("f.yaml", 2, err)
	if e.Line < 1 || e.Line > 2 || e.File != "f.yaml" {
		t.Errorf("got %+v", e)
	}
	if e := ParseError("f.yaml", 1, errors.New("yaml: line 9: boom")); e.Line != 1 || e.Msg != "boom" {
		t.Errorf("line past the end not clamped: %+v", e)
	}
}

func TestDescribe(t *testing.T) {
	for in, want := range map[string]string{"a: 1": "a mapping", "[1]": "a sequence", "x": "a string", "3": "an integer", "~": "null", "true": "a boolean"} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(in), &doc); err != nil {
			t.Fatal(err)
		}
		if got := Describe(Deref(doc.Content[0])); got != want {
			t.Errorf("Describe(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDocument(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "f.yaml: empty"},
		{"~\n", "f.yaml: empty"},
		{"a: 1\n---\nb: 2\n", "f.yaml:2: more than one YAML document"},
		{"a: [1\n", "f.yaml:1: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		_, err := Document("f.yaml", []byte(tt.in), "empty")
		if err == nil || err.Error() != tt.want {
			t.Errorf("Document(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
	n, err := Document("f.yaml", []byte("a: 1\n"), "empty")
	if err != nil || n.Kind != yaml.MappingNode {
		t.Errorf("Document of a mapping: %v, %v", n, err)
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8080/x", ""},
		{"https://example.test/", ""},
		{"grpc://127.0.0.1:50051/pkg.Svc/Method", ""},
		{"grpcs://svc.ns:443/Svc/Method", ""},
		{"grpc://svc.ns/Svc/Method", `"grpc://svc.ns/Svc/Method" names no port: want grpc://HOST:PORT/package.Service/Method`},
		{"127.0.0.1:8080/x", `expected an absolute http, https, grpc or grpcs URL, got "127.0.0.1:8080/x"; did you mean "http://127.0.0.1:8080/x"?`},
		{"ftp://h/x", `expected an absolute http, https, grpc or grpcs URL, got "ftp://h/x"`},
		{"grpc:///pkg.Svc/Method", `"grpc:///pkg.Svc/Method" names no server: want grpc://HOST:PORT/package.Service/Method`},
		{"grpc://h:1/Method", `"grpc://h:1/Method" names no gRPC method: want grpc://HOST:PORT/package.Service/Method`},
		{"grpc://h:1/a/b/c", `"grpc://h:1/a/b/c" names no gRPC method: want grpc://HOST:PORT/package.Service/Method`},
		{"grpcs://h:1/a/b?x=1", `"grpcs://h:1/a/b?x=1": a gRPC method's URL has no query or fragment`},
	} {
		u, msg := ParseTarget(tc.in)
		if msg != tc.want {
			t.Errorf("ParseTarget(%q) = %q, want %q", tc.in, msg, tc.want)
		}
		if (u != nil) != (tc.want == "") {
			t.Errorf("ParseTarget(%q): URL %v with message %q", tc.in, u, msg)
		}
	}
}
