package load

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/yamlfile"
)

// fuzzFiles are the files the fuzzed parsers can read.
var fuzzFiles = fakeFiles(map[string]string{
	"create.json": `{"name":"cm-{{.Worker}}-{{.Iter}}"}`,
	"body.json":   "{}",
	"bad.tmpl":    "{{oops}}",
})

// addFiles adds the files matching pattern to f's seed corpus.
func addFiles(f *testing.F, pattern string) {
	f.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkSyntaxError fails t unless err is a *SyntaxError naming fuzz.txt
// and one of the lines of data, ending at any of breaks, or lists such
// errors by line, at most yamlfile.MaxProblems of them.
func checkSyntaxError(t *testing.T, data []byte, err error, breaks ...string) {
	t.Helper()
	errs := []error{err}
	if ps, ok := err.(*yamlfile.Problems); ok {
		errs = ps.List
		if len(errs) < 2 && ps.More == 0 || len(errs) > yamlfile.MaxProblems {
			t.Fatalf("%d problems listed and %d more", len(errs), ps.More)
		}
	}
	lines := 1
	for _, b := range breaks {
		lines += bytes.Count(data, []byte(b))
	}
	last := 0
	for _, e := range errs {
		se, ok := e.(*SyntaxError)
		if !ok {
			t.Fatalf("error %q is %T, want *SyntaxError", e, e)
		}
		if se.File != "fuzz.txt" || se.Line < last || se.Line > lines || se.Msg == "" {
			t.Fatalf("bad error %#v for %d lines, after line %d", se, lines, last)
		}
		last = se.Line
	}
}

// checkRequest fails t unless req could be sent.
func checkRequest(t *testing.T, req *Request) {
	t.Helper()
	switch {
	case !IsToken(req.Method):
		t.Fatalf("invalid method %q", req.Method)
	case req.URL == nil || !req.URL.IsAbs() || req.URL.Host == "" ||
		req.URL.Scheme != "http" && req.URL.Scheme != "https":
		t.Fatalf("URL %v is not absolute http or https", req.URL)
	case req.Header == nil:
		t.Fatal("nil Header")
	case !ValidHeaderValue(req.Host):
		t.Fatalf("invalid Host %q", req.Host)
	}
	for k, vs := range req.Header {
		if !IsToken(k) || k != http.CanonicalHeaderKey(k) || k == "Host" || len(vs) == 0 {
			t.Fatalf("bad header %q: %q", k, vs)
		}
		for _, v := range vs {
			if !ValidHeaderValue(v) {
				t.Fatalf("header %q: invalid value %q", k, v)
			}
		}
	}
}

func FuzzParseTargets(f *testing.F) {
	addFiles(f, "testdata/targets/*.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, err := ParseTargets("fuzz.txt", data, fuzzFiles)
		if err != nil {
			checkSyntaxError(t, data, err, "\n")
			return
		}
		if len(reqs) == 0 {
			t.Fatal("no targets and no error")
		}
		for _, req := range reqs {
			checkRequest(t, req)
			if req.Step != 0 {
				t.Fatalf("Step = %d, want 0", req.Step)
			}
		}
	})
}

func FuzzParseScenario(f *testing.F) {
	addFiles(f, "testdata/scenario/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScenario("fuzz.txt", data, fuzzFiles)
		if err != nil {
			// YAML also breaks lines at a lone CR and at NEL, LS and PS.
			checkSyntaxError(t, data, err, "\n", "\r", "\u0085", "\u2028", "\u2029")
			return
		}
		names := s.Names()
		if s.Len() == 0 || len(names) != s.Len() {
			t.Fatalf("Len() = %d, Names() = %q", s.Len(), names)
		}
		seen := map[string]bool{}
		for _, name := range names {
			if name == "" || seen[name] {
				t.Fatalf("empty or repeated name in %q", names)
			}
			seen[name] = true
		}
		for i := range s.Len() {
			// Parsing built every step with zero Vars, so that must work.
			req, err := s.Build(i, Vars{})
			if err != nil {
				t.Fatalf("Build(%d, zero Vars): %v", i, err)
			}
			checkRequest(t, req)
			if req.Step != i {
				t.Fatalf("Step = %d, want %d", req.Step, i)
			}
			// Other Vars may fail to build, but must not build a bad request.
			if req, err := s.Build(i, Vars{Worker: 3, Iter: 1 << 40, Seq: -1}); err == nil {
				checkRequest(t, req)
			}
		}
		if _, err := s.Build(s.Len(), Vars{}); err == nil {
			t.Fatal("Build(Len()) succeeded")
		}
	})
}
