package load

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// buildAll builds every step of s for v.
func buildAll(t *testing.T, s *Scenario, v Vars) []flat {
	t.Helper()
	var reqs []*Request
	for i := range s.Len() {
		req, err := s.Build(i, v)
		if err != nil {
			t.Fatalf("Build(%d, %+v): %v", i, v, err)
		}
		reqs = append(reqs, req)
	}
	return flatten(t, reqs...)
}

func TestParseScenario(t *testing.T) {
	const u = "http://127.0.0.1:8080/objects"
	files := fakeFiles(map[string]string{"body.json": `{"seq":{{.Seq}}}`, "static.txt": "hello"})
	v := Vars{Worker: 2, Iter: 3, Seq: 7}
	tests := []struct {
		name  string
		in    string
		names []string
		want  []flat
	}{
		{"minimal", "steps: [{url: " + u + "}]", []string{"step1"},
			[]flat{{Method: "GET", URL: u, Header: http.Header{}}}},
		{"default names", "steps:\n- url: " + u + "\n- {name: b, url: " + u + "}\n- url: " + u, []string{"step1", "b", "step3"},
			[]flat{{Method: "GET", URL: u, Header: http.Header{}}, {Method: "GET", URL: u, Header: http.Header{}, Step: 1}, {Method: "GET", URL: u, Header: http.Header{}, Step: 2}}},
		{"templates", `
steps:
  - name: t
    method: '{{if .Iter}}PUT{{else}}POST{{end}}'
    url: ` + u + `/cm-{{.Worker}}-{{.Iter}}?seq={{.Seq}}
    headers: {content-type: application/json, X-Seq: '{{.Seq}}', X-Static: "1", Host: 'h{{.Worker}}.example.test'}
    body: '{"name":"cm-{{.Worker}}-{{.Iter}}"}'
`, []string{"t"}, []flat{{
			Method: "PUT", URL: u + "/cm-2-3?seq=7", Host: "h2.example.test",
			Header: http.Header{"Content-Type": {"application/json"}, "X-Seq": {"7"}, "X-Static": {"1"}},
			Body:   `{"name":"cm-2-3"}`,
		}}},
		{"static", "steps:\n- method: PATCH\n  url: " + u + "\n  headers: {Host: a.example.test, A: b}\n  body: x",
			[]string{"step1"}, []flat{{Method: "PATCH", URL: u, Host: "a.example.test", Header: http.Header{"A": {"b"}}, Body: "x"}}},
		{"body files", "steps:\n- {url: " + u + ", body_file: body.json}\n- {url: " + u + ", body_file: static.txt}", []string{"step1", "step2"}, []flat{
			{Method: "GET", URL: u, Header: http.Header{}, Body: `{"seq":7}`},
			{Method: "GET", URL: u, Header: http.Header{}, Body: "hello", Step: 1},
		}},
		{"scalars as strings", "steps:\n- url: " + u + "\n  headers: {A: 5, B: 1.5, C: true, D: 2001-12-14}\n  body: 42",
			[]string{"step1"}, []flat{{Method: "GET", URL: u, Header: http.Header{"A": {"5"}, "B": {"1.5"}, "C": {"true"}, "D": {"2001-12-14"}}, Body: "42"}}},
		{"anchors", "steps:\n- {url: &u " + u + ", headers: &h {A: b}}\n- {url: *u, headers: *h}", []string{"step1", "step2"}, []flat{
			{Method: "GET", URL: u, Header: http.Header{"A": {"b"}}},
			{Method: "GET", URL: u, Header: http.Header{"A": {"b"}}, Step: 1},
		}},
		{"empty body", "steps: [{url: " + u + ", body: ''}]", []string{"step1"}, []flat{{Method: "GET", URL: u, Header: http.Header{}}}},
		{"comments and document marker", "# c\n---\nsteps: # c\n  - url: " + u + " # c\n", []string{"step1"}, []flat{{Method: "GET", URL: u, Header: http.Header{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseScenario("s.yaml", []byte(tt.in), files)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.names, s.Names()); diff != "" {
				t.Errorf("Names() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, buildAll(t, s, v)); diff != "" {
				t.Errorf("Build mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseScenarioErrors(t *testing.T) {
	const u = "http://127.0.0.1:8080/"
	step := "steps:\n  - url: " + u + "\n    "
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "s.yaml: no steps"},
		{"only comments", "# nothing\n", "s.yaml: no steps"},
		{"yaml syntax", "steps: [\n", "s.yaml:1: did not find expected node content"},
		{"yaml tab", "steps:\n\t- url: x\n", "s.yaml:2: found character that cannot start any token"},
		{"unknown anchor", "steps: *x\n", "s.yaml: unknown anchor 'x' referenced"},
		{"two documents", "steps: []\n---\nsteps: []\n", "s.yaml:2: more than one YAML document"},
		{"null document", "---\n", "s.yaml: no steps"},
		{"null", "~", "s.yaml: no steps"},
		{"yaml error past the end", "steps:\n  - url: \"a\n", "s.yaml:2: found unexpected end of stream"},
		{"root sequence", "- url: x\n", "s.yaml:1: expected a mapping, got a sequence"},
		{"unknown top field", "steps: []\nstep: []\n", "s.yaml:1: steps: expected at least one step\ns.yaml:2: step: unknown field; did you mean steps?"},
		{"duplicate top field", "steps: []\nsteps: []\n", "s.yaml:1: steps: expected at least one step\ns.yaml:2: steps: duplicate field"},
		{"non-string key", "[a]: 1\n", "s.yaml:1: expected a string, got a sequence\ns.yaml:1: steps: missing"},
		{"no steps", "other: 1\n", "s.yaml:1: other: unknown field; expected steps, users\ns.yaml:1: steps: missing"},
		{"users empty", "users: []\nsteps:\n  - url: " + u + "\n", "s.yaml:1: users: expected at least one user"},
		{"user no name", "users:\n  - {token: a}\nsteps:\n  - url: " + u + "\n", "s.yaml:2: users[0].name: missing"},
		{"user duplicate", "users:\n  - {name: a}\n  - {name: a}\nsteps:\n  - url: " + u + "\n", `s.yaml:3: users[1].name: duplicate name "a"`},
		{"user unknown field", "users:\n  - {name: a, tokn: b}\nsteps:\n  - url: " + u + "\n", "s.yaml:2: users[0].tokn: unknown field; did you mean token?"},
		{"user weight", "users:\n  - {name: a, weight: 0}\nsteps:\n  - url: " + u + "\n", "s.yaml:2: users[0].weight: 0 is less than 1"},
		{"user token and file", "users:\n  - {name: a, token: b, token_file: tok}\nsteps:\n  - url: " + u + "\n", "s.yaml:2: users[0].token_file: cannot be used with token"},
		{"user token file missing", "users:\n  - {name: a, token_file: nope}\nsteps:\n  - url: " + u + "\n", "s.yaml:2: users[0].token_file: open nope: file does not exist"},
		{"user token file empty", "users:\n  - {name: a, token_file: empty}\nsteps:\n  - url: " + u + "\n", "s.yaml:2: users[0].token_file: empty is empty"},
		{"user token value", "users:\n  - {name: a, token: \"b\\nc\"}\nsteps:\n  - url: " + u + "\n", "s.yaml:2: users[0].token: holds characters a header value cannot"},
		{"user without users", step + "headers: {Authorization: 'Bearer {{.User.Token}}'}\n", "s.yaml:3: steps[0].headers.Authorization: .User needs the scenario's users: list"},
		{"missing steps", "{}\n", "s.yaml:1: steps: missing"},
		{"steps null", "steps:\n", "s.yaml:1: steps: expected a sequence, got null"},
		{"steps mapping", "steps: {url: x}\n", "s.yaml:1: steps: expected a sequence, got a mapping"},
		{"zero steps", "steps: []\n", "s.yaml:1: steps: expected at least one step"},
		{"step not mapping", "steps:\n  - " + u + "\n", "s.yaml:2: steps[0]: expected a mapping, got a string"},
		{"unknown step field", step + "bdy: x\n", "s.yaml:3: steps[0].bdy: unknown field; did you mean body?"},
		{"duplicate step field", step + "url: " + u + "\n", "s.yaml:3: steps[0].url: duplicate field"},
		{"merge key", step + "<<: {method: PUT}\n", "s.yaml:3: steps[0]: merge keys (<<) are not supported"},
		{"missing url", "steps:\n  - url: " + u + "\n  - method: GET\n", "s.yaml:3: steps[1].url: missing"},
		{"url null", "steps:\n  - url:\n    method: GET\n", "s.yaml:2: steps[0].url: expected a string, got null"},
		{"url null at the end", "steps:\n  - url:", "s.yaml:2: steps[0].url: expected a string, got null"},
		{"step null at the end", "steps:\n  -\n", "s.yaml:2: steps[0]: expected a mapping, got null"},
		{"url sequence", "steps:\n  - url: [a]\n", "s.yaml:2: steps[0].url: expected a string, got a sequence"},
		{"url custom tag", "steps:\n  - url: !x " + u + "\n", "s.yaml:2: steps[0].url: expected a string, got !x"},
		{"url relative", "steps:\n  - url: /objects\n", `s.yaml:2: steps[0].url: expected an absolute http, https, grpc or grpcs URL, got "/objects"`},
		{"url invalid", "steps:\n  - url: http://a:b/\n", `s.yaml:2: steps[0].url: invalid URL "http://a:b/": invalid port ":b" after host`},
		{"url template result", "steps:\n  - url: '{{.Iter}}'\n", `s.yaml:2: steps[0].url: expected an absolute http, https, grpc or grpcs URL, got "0"`},
		{"template syntax", "steps:\n  - url: " + u + "{{.Iter\n", "s.yaml:2: steps[0].url: template: url:1: unclosed action"},
		{"template field", step + "body: '{{.Foo}}'\n", `s.yaml:3: steps[0].body: template: body:1:2: executing "body" at <.Foo>: can't evaluate field Foo in type *load.Vars`},
		{"template function", step + "method: '{{foo}}'\n", `s.yaml:3: steps[0].method: template: method:1: function "foo" not defined`},
		{"template range", step + "body: '{{range 3}}x{{end}}'\n", "s.yaml:3: steps[0].body: range is not supported"},
		{"template range nested", step + "body: '{{if 1}}{{else}}{{with 2}}{{range 3}}{{end}}{{end}}{{end}}'\n", "s.yaml:3: steps[0].body: range is not supported"},
		{"template call", step + "body: '{{template \"body\"}}'\n", "s.yaml:3: steps[0].body: template calls are not supported"},
		{"template define", step + "body: '{{define \"x\"}}y{{end}}z'\n", "s.yaml:3: steps[0].body: template definitions are not supported"},
		{"template too long", step + "body: '" + strings.Repeat(`{{printf "%1000000d" 1}}`, 17) + "'\n",
			"s.yaml:3: steps[0].body: value longer than 16777216 bytes"},
		{"empty name", step + "name: ''\n", "s.yaml:3: steps[0].name: empty"},
		{"duplicate name", "steps:\n  - {name: a, url: " + u + "}\n  - {name: a, url: " + u + "}\n", `s.yaml:3: steps[1].name: duplicate name "a"`},
		{"duplicate default name", "steps:\n  - {name: step2, url: " + u + "}\n  - {url: " + u + "}\n", `s.yaml:3: steps[1].name: duplicate name "step2"`},
		{"method empty", step + "method: ''\n", `s.yaml:3: steps[0].method: invalid method ""`},
		{"method space", step + "method: GET X\n", `s.yaml:3: steps[0].method: invalid method "GET X"`},
		{"method template result", step + "method: '{{.Iter}} X'\n", `s.yaml:3: steps[0].method: invalid method "0 X"`},
		{"headers sequence", step + "headers: [a]\n", "s.yaml:3: steps[0].headers: expected a mapping, got a sequence"},
		{"header name", step + "headers: {'A B': c}\n", "s.yaml:3: steps[0].headers.A B: invalid header name"},
		{"header value type", step + "headers: {A: [b]}\n", "s.yaml:3: steps[0].headers.A: expected a string, got a sequence"},
		{"header value", step + "headers: {A: \"b\\nc\"}\n", `s.yaml:3: steps[0].headers.A: invalid value "b\nc"`},
		{"header value template", step + "headers: {A: '{{printf \"%c\" 10}}'}\n", `s.yaml:3: steps[0].headers.A: invalid value "\n"`},
		{"header twice", step + "headers: {a: b, A: c}\n", "s.yaml:3: steps[0].headers.A: duplicate header"},
		{"header twice templated", step + "headers: {a: '{{.Seq}}', A: c}\n", "s.yaml:3: steps[0].headers.A: duplicate header"},
		{"host twice", step + "headers: {host: b, Host: c}\n", "s.yaml:3: steps[0].headers.Host: duplicate header"},
		{"host empty", step + "headers: {Host: ''}\n", `s.yaml:3: steps[0].headers.Host: invalid Host ""`},
		{"host template", step + "headers: {Host: '{{if .Iter}}a{{end}}'}\n", `s.yaml:3: steps[0].headers.Host: invalid Host ""`},
		{"body and body_file", step + "body: x\n    body_file: body.json\n", "s.yaml:4: steps[0].body_file: cannot be used with body"},
		{"body_file empty", step + "body_file: ''\n", "s.yaml:3: steps[0].body_file: empty"},
		{"body_file type", step + "body_file: {a: b}\n", "s.yaml:3: steps[0].body_file: expected a string, got a mapping"},
		{"body_file missing", step + "body_file: missing.json\n", "s.yaml:3: steps[0].body_file: open missing.json: file does not exist"},
		{"body_file template", step + "body_file: bad.tmpl\n", `s.yaml:3: steps[0].body_file: template: body_file:2: function "oops" not defined`},
		{"body type", step + "body: {a: b}\n", "s.yaml:3: steps[0].body: expected a string, got a mapping"},
		{"every problem", "steps:\n  - {url: " + u + ", bdy: x}\n  - {method: 'A B', url: " + u + "}\n  - {name: x}\n  - {url: /a, headers: {'A B': c, D: [e]}}\n",
			"s.yaml:2: steps[0].bdy: unknown field; did you mean body?\n" +
				`s.yaml:3: steps[1].method: invalid method "A B"` + "\n" +
				"s.yaml:4: steps[2].url: missing\n" +
				"s.yaml:5: steps[3].headers.A B: invalid header name\n" +
				"s.yaml:5: steps[3].headers.D: expected a string, got a sequence"},
	}
	files := fakeFiles(map[string]string{"body.json": "{}", "bad.tmpl": "line 1\n{{oops}}\n", "tok": "t", "empty": "\n"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseScenario("s.yaml", []byte(tt.in), files)
			if err == nil {
				t.Fatalf("ParseScenario(%q) = %d steps, want error %q", tt.in, s.Len(), tt.want)
			}
			wantSyntaxError(t, "ParseScenario", tt.in, err, tt.want)
		})
	}
}

func TestReadScenario(t *testing.T) {
	const u = "http://127.0.0.1:8080/objects/cm-2-3"
	json := http.Header{"Content-Type": {"application/json"}}
	s, err := ReadScenario("testdata/scenario/crud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"create", "update", "get", "delete"}, s.Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
	want := []flat{
		{Method: "POST", URL: u, Header: json, Body: "{\"name\":\"cm-2-3\",\"seq\":7}\n"},
		{Method: "PUT", URL: u, Header: json, Body: `{"name":"cm-2-3","version":2}`, Step: 1},
		{Method: "GET", URL: u, Header: http.Header{"Accept": {"application/json"}, "X-Seq": {"7"}}, Step: 2},
		{Method: "DELETE", URL: u, Header: http.Header{}, Step: 3},
	}
	if diff := cmp.Diff(want, buildAll(t, s, Vars{Worker: 2, Iter: 3, Seq: 7})); diff != "" {
		t.Errorf("Build mismatch (-want +got):\n%s", diff)
	}
}

func TestScenarioBuildErrors(t *testing.T) {
	s, err := ParseScenario("s.yaml", []byte(`
steps:
  - {name: index, url: 'http://a/{{index "ab" .Iter}}'}
  - {name: url, url: 'http://a{{if .Iter}}:bad{{end}}/'}
  - {name: method, method: '{{if .Iter}}A B{{else}}GET{{end}}', url: 'http://a/'}
  - {name: header, url: 'http://a/', headers: {A: '{{if .Iter}}{{printf "%c" 13}}{{end}}'}}
  - {name: host, url: 'http://a/', headers: {Host: '{{if .Iter}}{{else}}a{{end}}'}}
  - {name: body, url: 'http://a/', body: '{{index "ab" .Iter}}'}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		step int
		want string
	}{
		{-1, "building step -1: out of range [0, 6)"},
		{6, "building step 6: out of range [0, 6)"},
		{0, `building step "index": url: template: url:1:11: executing "url" at <index "ab" .Iter>: error calling index: index out of range: 5`},
		{1, `building step "url": url: invalid URL "http://a:bad/": invalid port ":bad" after host`},
		{2, `building step "method": method: invalid method "A B"`},
		{3, `building step "header": headers.A: invalid value "\r"`},
		{4, `building step "host": headers.Host: invalid Host ""`},
		{5, `building step "body": body: template: body:1:2: executing "body" at <index "ab" .Iter>: error calling index: index out of range: 5`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.step), func(t *testing.T) {
			req, err := s.Build(tt.step, Vars{Iter: 5})
			if err == nil {
				t.Fatalf("Build(%d) = %v, want error %q", tt.step, req, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Build(%d) error:\n got %s\nwant %s", tt.step, got, tt.want)
			}
		})
	}
}

func TestScenarioStatic(t *testing.T) {
	s, err := ReadScenario("testdata/scenario/health.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, errA := s.Build(0, Vars{Seq: 1})
	b, errB := s.Build(0, Vars{Seq: 2})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if a == b {
		t.Error("Build returned the same *Request twice")
	}
	want := []flat{{Method: "GET", URL: "http://127.0.0.1:8080/healthz", Host: "api.example.test", Header: http.Header{"Accept": {"text/plain"}}}}
	if diff := cmp.Diff(want, flatten(t, a)); diff != "" {
		t.Errorf("Build mismatch (-want +got):\n%s", diff)
	}
	names := s.Names()
	names[0] = "changed"
	if got := s.Names()[0]; got != "health" {
		t.Errorf("Names()[0] = %q after changing a copy, want %q", got, "health")
	}
}

func TestScenarioBuildConcurrent(t *testing.T) {
	s, err := ReadScenario("testdata/scenario/crud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const workers, iters = 8, 200
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range int64(workers) {
		wg.Go(func() {
			for i := range int64(iters) {
				v := Vars{Worker: w, Iter: i, Seq: i*workers + w}
				for step := range s.Len() {
					req, err := s.Build(step, v)
					if err != nil {
						errs <- err
						return
					}
					if got, want := req.URL.Path, fmt.Sprintf("/objects/cm-%d-%d", w, i); got != want || req.Step != step {
						errs <- fmt.Errorf("Build(%d, %+v) = %s step %d, want %s step %d", step, v, got, req.Step, want, step)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkScenarioBuild(b *testing.B) {
	for _, path := range []string{"testdata/scenario/health.yaml", "testdata/scenario/crud.yaml"} {
		s, err := ReadScenario(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(path[len("testdata/scenario/"):], ".yaml"), func(b *testing.B) {
			b.ReportAllocs()
			var v Vars
			for b.Loop() {
				v.Seq++
				if _, err := s.Build(int(v.Seq)%s.Len(), v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestScenarioUsers gives iterations their users in turn by weight, the
// same user to every step of an iteration, and tokens from the file or
// the field.
func TestScenarioUsers(t *testing.T) {
	in := `users:
  - {name: alice, token: a-token}
  - {name: bob, token_file: bob.token, weight: 2}
steps:
  - name: create
    method: POST
    url: "http://127.0.0.1:8080/objects/{{.User.Name}}-{{.Seq}}"
    headers: {Authorization: "Bearer {{.User.Token}}"}
  - name: get
    url: http://127.0.0.1:8080/static
`
	s, err := ParseScenario("s.yaml", []byte(in), fakeFiles(map[string]string{"bob.token": "b-token\n"}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alice", "bob", "bob", "alice", "bob", "bob", "alice"}
	for seq, name := range want {
		v := Vars{Seq: int64(seq), Worker: 5}
		req, err := s.Build(0, v)
		if err != nil {
			t.Fatal(err)
		}
		token := map[string]string{"alice": "a-token", "bob": "b-token"}[name]
		if got := req.Header.Get("Authorization"); got != "Bearer "+token {
			t.Errorf("iteration %d: Authorization %q, want %q's token", seq, got, name)
		}
		if got, want := req.URL.Path, fmt.Sprintf("/objects/%s-%d", name, seq); got != want {
			t.Errorf("iteration %d: path %q, want %q", seq, got, want)
		}
		// A step without templates is the same request whoever sends it.
		if _, err := s.Build(1, v); err != nil {
			t.Fatal(err)
		}
	}
}
