package spec

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/load"
)

func FuzzParseSpec(f *testing.F) {
	paths, err := filepath.Glob("testdata/specs/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	examples, _ := filepath.Glob("../examples/experiments/*.yaml")
	top, _ := filepath.Glob("../examples/*.yaml")
	examples = append(examples, top...)
	for _, p := range append(paths, examples...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec("fuzz.yaml", data, "testdata/specs")
		if err != nil {
			checkErrors(t, err, data)
			return
		}
		checkSpec(t, s, data)
	})
}

// checkErrors fails t unless err is what ParseSpec promises: one error per
// line, each a *SyntaxError of the spec within its lines, or the error of
// a file in testdata/specs.
func checkErrors(t *testing.T, err error, data []byte) {
	t.Helper()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	// Lines break at \n, \r\n and \r, and some Unicode breaks.
	lines := 1 + bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + bytes.Count(data, []byte("\u2028")) +
		bytes.Count(data, []byte("\u2029")) + bytes.Count(data, []byte("\u0085"))
	for _, e := range errs {
		var (
			se *SyntaxError
			ge *graph.SyntaxError
			le *load.SyntaxError
		)
		switch {
		case strings.Contains(e.Error(), "\n"):
			t.Fatalf("error %q spans lines", e)
		case errors.As(e, &se):
			if se.File != "fuzz.yaml" || se.Line < 0 || se.Line > lines || se.Msg == "" {
				t.Fatalf("bad error %#v for %d lines", se, lines)
			}
		case errors.As(e, &ge), errors.As(e, &le):
			if !strings.HasPrefix(e.Error(), "testdata/specs/") {
				t.Fatalf("error %q of a file outside testdata/specs", e)
			}
		default:
			t.Fatalf("error %q is %T", e, e)
		}
	}
}

// checkSpec fails t unless s is what ParseSpec promises, and its plan,
// loads, hash and dry run work.
func checkSpec(t *testing.T, s *Spec, data []byte) {
	t.Helper()
	if s.Version != 1 || s.Name == "" || len(s.Variants) == 0 || s.Variant(s.Baseline) == nil || s.Runs < 1 {
		t.Fatalf("incomplete spec %+v", s)
	}
	levels := 0
	for _, v := range s.Variants {
		if (v.Graph == "") == (v.Target == "") || (v.Graph != "") != (v.Topology != nil) {
			t.Fatalf("variant %s: graph %q, target %q", v.Name, v.Graph, v.Target)
		}
		n := len(v.Load.levels(v.Name))
		if n == 0 || v.Load.Duration <= 0 && v.Load.Requests <= 0 {
			t.Fatalf("variant %s: %d levels, duration %s, %d requests", v.Name, n, v.Load.Duration, v.Load.Requests)
		}
		levels += n
	}
	again, err := ParseSpec("fuzz.yaml", data, "testdata/specs")
	if err != nil || again.Hash() != s.Hash() {
		t.Fatalf("parsing again: %v, hash %s then %s", err, s.Hash(), again.Hash())
	}
	if d := DiffCanonical(s.Canonical(), again.Canonical()); d != "" {
		t.Fatalf("diff with itself:\n%s", d)
	}
	if levels*s.Runs > 20000 {
		return // a valid plan, too long to check here
	}
	plan := s.Plan(1)
	if len(plan) != levels*s.Runs {
		t.Fatalf("%d trials, want %d", len(plan), levels*s.Runs)
	}
	for _, tr := range plan[:min(len(plan), 20)] {
		cfg, err := s.LoadFor(tr, "http://127.0.0.1:1")
		if err != nil || cfg.Source == nil || len(cfg.Source.Steps()) == 0 || cfg.Model == nil {
			t.Fatalf("trial %+v: %v", tr, err)
		}
		if _, _, err := s.WarmupFor(tr, "http://127.0.0.1:1"); err != nil {
			t.Fatalf("warm-up of %+v: %v", tr, err)
		}
	}
	if err := s.WritePlan(io.Discard, plan); err != nil {
		t.Fatal(err)
	}
}
