package graph

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latlab/latlab/yamlfile"
)

func FuzzParseTopology(f *testing.F) {
	paths, err := filepath.Glob("testdata/topology/*.yaml")
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
	f.Fuzz(func(t *testing.T, data []byte) {
		top, err := ParseTopology("fuzz.yaml", data, "testdata/topology")
		if err != nil {
			// Lines break at \n, \r\n and \r, and some Unicode breaks.
			lines := 1 + bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + bytes.Count(data, []byte("\u2028")) +
				bytes.Count(data, []byte("\u2029")) + bytes.Count(data, []byte("\u0085"))
			errs := []error{err}
			if ps, ok := err.(*yamlfile.Problems); ok {
				errs = ps.List // by line, at most MaxProblems
			}
			for i, e := range errs {
				se, ok := e.(*SyntaxError)
				if !ok || i >= yamlfile.MaxProblems {
					t.Fatalf("error %d, %q, is %T, want one of at most %d *SyntaxErrors", i, e, e, yamlfile.MaxProblems)
				}
				if se.File != "fuzz.yaml" || se.Line < 0 || se.Line > lines || se.Msg == "" || i > 0 && se.Line < errs[i-1].(*SyntaxError).Line {
					t.Fatalf("bad error %#v for %d lines", se, lines)
				}
			}
			return
		}
		checkTopology(t, top)
		Dot(top)
	})
}

// checkTopology fails t unless top is what the parser promises: services
// named, every call to one of them, no cycles, steps within bounds.
func checkTopology(t *testing.T, top *Topology) {
	t.Helper()
	if len(top.Services) == 0 || top.Entry() == nil {
		t.Fatal("no services")
	}
	names := map[string]bool{}
	for _, s := range top.Services {
		if s.Name == "" || names[s.Name] {
			t.Fatalf("service name %q empty or repeated", s.Name)
		}
		names[s.Name] = true
		if s.Proxy != "" && (len(s.Script) > 0 || len(s.Calls) > 0) {
			t.Fatalf("proxy %s has a script or calls", s.Name)
		}
		filters := map[string]bool{}
		for _, f := range s.Filters {
			if filters[f.Name] {
				t.Fatalf("service %s: filter name %q repeated", s.Name, f.Name)
			}
			filters[f.Name] = true
		}
		checkSteps(t, s, s.Script, false)
	}
	// Kahn's algorithm: an acyclic graph empties.
	in := map[string]int{}
	out := map[string][]string{}
	for _, e := range top.Edges() {
		if !names[e[1]] {
			t.Fatalf("%s calls unknown service %s", e[0], e[1])
		}
		in[e[1]]++
		out[e[0]] = append(out[e[0]], e[1])
	}
	var ready []string
	for n := range names {
		if in[n] == 0 {
			ready = append(ready, n)
		}
	}
	done := 0
	for len(ready) > 0 {
		n := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		done++
		for _, m := range out[n] {
			if in[m]--; in[m] == 0 {
				ready = append(ready, m)
			}
		}
	}
	if done != len(names) {
		t.Fatalf("accepted a cycle: edges %v", top.Edges())
	}
}

// checkSteps fails t unless steps are within the parser's bounds.
func checkSteps(t *testing.T, s *Service, steps []Step, nested bool) {
	t.Helper()
	for _, st := range steps {
		var ok bool
		switch st.Kind {
		case Busywork, Sleep:
			ok = st.Duration > 0 && st.Duration <= time.Hour
		case Prime:
			ok = st.N >= 1 && st.N <= 1e9
		case Payload:
			ok = st.N >= 1 && st.N <= 1<<30
		case Fork:
			_, ok = s.Commands[st.Name]
		case Stress:
			_, ok = s.Jobs[st.Name]
		case Call:
			ok = st.Prob > 0 && st.Prob <= 1 && st.N >= 0 && st.N <= 1<<30
		case Parallel:
			ok = !nested && len(st.Steps) > 0
			checkSteps(t, s, st.Steps, true)
		default:
			ok = false
		}
		if !ok {
			t.Fatalf("service %s: bad step %+v", s.Name, st)
		}
	}
}
