package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// loadBase is a valid spec of 7 lines that ends inside load: lines added
// to it start at line 8, indented into load or not.
const loadBase = "version: 1\nname: t\nvariants:\n  - name: a\n    target: http://127.0.0.1:9000/\nload:\n  rates: [100]\n"

// varBase is a spec of 6 lines that ends inside its first variant: lines
// added to it start at line 7.
const varBase = "version: 1\nname: t\nload:\n  rates: [100]\nvariants:\n  - name: a\n"

// errorCase is a spec and the error it must give, in full.
type errorCase struct {
	name string
	spec string
	want string
}

// testErrors checks that each spec of tests gives its error and no spec.
func testErrors(t *testing.T, tests []errorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSpec("spec.yaml", []byte(tt.spec), "testdata/specs")
			if err == nil {
				t.Fatalf("parsed %+v, want error\n%s", s, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
			if s != nil {
				t.Error("got a spec with the error")
			}
		})
	}
}

// TestParseSpecErrors covers the document, its top fields and variants.
func TestParseSpecErrors(t *testing.T) {
	testErrors(t, []errorCase{
		{
			name: "empty",
			spec: "",
			want: "spec.yaml: empty spec: give version, name, variants and load",
		},
		{
			name: "only a comment",
			spec: "# nothing\n",
			want: "spec.yaml: empty spec: give version, name, variants and load",
		},
		{
			name: "YAML syntax",
			spec: "version: 1\nname: [t\n",
			want: "spec.yaml:1: did not find expected ',' or ']'",
		},
		{
			name: "two documents",
			spec: "version: 1\nname: t\nvariants:\n  - name: a\n    target: http://127.0.0.1:9000/\nload:\n  rates: [100]\n---\nversion: 1\n",
			want: "spec.yaml:8: more than one YAML document",
		},
		{
			name: "not a mapping",
			spec: "- version: 1\n",
			want: "spec.yaml:1: expected a mapping, got a sequence",
		},
		{
			name: "missing required fields",
			spec: "runs: 2\n",
			want: "spec.yaml:1: version: missing\n" +
				"spec.yaml:1: name: missing\n" +
				"spec.yaml:1: variants: missing\n" +
				"spec.yaml:1: load: missing",
		},
		{
			name: "unknown field",
			spec: loadBase + "title: x\n",
			want: "spec.yaml:8: title: unknown field",
		},
		{
			name: "duplicate field",
			spec: loadBase + "name: u\n",
			want: "spec.yaml:8: name: duplicate field",
		},
		{
			name: "merge key",
			spec: "base: &b {version: 1}\n<<: *b\n",
			want: "spec.yaml:1: version: missing\n" +
				"spec.yaml:1: name: missing\n" +
				"spec.yaml:1: variants: missing\n" +
				"spec.yaml:1: load: missing\n" +
				"spec.yaml:1: base: unknown field\n" +
				"spec.yaml:2: merge keys (<<) are not supported",
		},
		{
			name: "version 2",
			spec: "version: 2\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: {rates: [1]}\n",
			want: "spec.yaml:1: version: unsupported version 2: this latlab reads version 1",
		},
		{
			name: "version not a number",
			spec: "version: one\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: {rates: [1]}\n",
			want: "spec.yaml:1: version: expected a whole number, got \"one\"",
		},
		{
			name: "name with a space",
			spec: "version: 1\nname: my test\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: {rates: [1]}\n",
			want: "spec.yaml:2: name: \"my test\" is not a name: use up to 63 letters, digits, '.', '_' and '-', starting with a letter or digit",
		},
		{
			name: "name empty",
			spec: "version: 1\nname: ''\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: {rates: [1]}\n",
			want: "spec.yaml:2: name: empty",
		},
		{
			name: "name null",
			spec: "version: 1\nname:\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: {rates: [1]}\n",
			want: "spec.yaml:2: name: expected a string, got null",
		},
		{
			name: "variants not a sequence",
			spec: "version: 1\nname: t\nvariants: {name: a}\nload: {rates: [1]}\n",
			want: "spec.yaml:3: variants: expected a sequence, got a mapping",
		},
		{
			name: "variants empty",
			spec: "version: 1\nname: t\nvariants: []\nload: {rates: [1]}\n",
			want: "spec.yaml:3: variants: expected at least one variant",
		},
		{
			name: "variant not a mapping",
			spec: "version: 1\nname: t\nvariants:\n  - plain\nload: {rates: [1]}\n",
			want: "spec.yaml:4: variants[0]: expected a mapping, got a string",
		},
		{
			name: "variant without name",
			spec: varBase + "    target: http://127.0.0.1:9000/\n  - target: http://127.0.0.1:9001/\n",
			want: "spec.yaml:8: variants[1].name: missing",
		},
		{
			name: "top-level typo",
			spec: loadBase + "rnus: 3\n",
			want: "spec.yaml:8: rnus: unknown field; did you mean runs?",
		},
		{
			name: "top-level field far from any",
			spec: loadBase + "repetitions: 3\n",
			want: "spec.yaml:8: repetitions: unknown field",
		},
		{
			name: "variant unknown field",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    grpah: graphs/chain.yaml\n",
			want: "spec.yaml:8: variants[0].grpah: unknown field; did you mean graph?",
		},
		{
			name: "duplicate variant",
			spec: varBase + "    target: http://127.0.0.1:9000/\n  - name: b\n    target: http://127.0.0.1:9001/\n  - name: a\n    target: http://127.0.0.1:9002/\n",
			want: "spec.yaml:10: variants[2].name: duplicate variant \"a\" (also at line 6)",
		},
		{
			name: "graph and target",
			spec: varBase + "    graph: graphs/chain.yaml\n    target: http://127.0.0.1:9000/\n",
			want: "spec.yaml:8: variants[0].target: cannot be used with graph (line 7): give graph or target, not both",
		},
		{
			name: "neither graph nor target",
			spec: varBase + "    ready_timeout: 5s\n",
			want: "spec.yaml:6: variants[0]: give graph (a topology file) or target (a URL)",
		},
		{
			name: "neither name nor graph nor target",
			spec: "version: 1\nname: t\nload:\n  rates: [100]\nvariants:\n  - ready_timeout: 5s\n",
			want: "spec.yaml:6: variants[0].name: missing\n" +
				"spec.yaml:6: variants[0]: give graph (a topology file) or target (a URL)",
		},
		{
			name: "graph missing",
			spec: varBase + "    graph: graphs/nope.yaml\n",
			want: "spec.yaml:7: variants[0].graph: testdata/specs/graphs/nope.yaml: no such file or directory",
		},
		{
			name: "graph is a folder",
			spec: varBase + "    graph: graphs\n",
			want: "spec.yaml:7: variants[0].graph: testdata/specs/graphs is a folder, not a file",
		},
		{
			name: "graph does not parse",
			spec: varBase + "    graph: graphs/broken.yaml\n",
			want: "testdata/specs/graphs/broken.yaml:4: services[0].script[0].busywork: \"ten\" is not a duration such as 10s or 1m30s",
		},
		{
			name: "graph not a string",
			spec: varBase + "    graph: [graphs/chain.yaml]\n",
			want: "spec.yaml:7: variants[0].graph: expected a string, got a sequence",
		},
		{
			name: "target not http",
			spec: varBase + "    target: ftp://127.0.0.1/\n",
			want: "spec.yaml:7: variants[0].target: expected an absolute http, https, grpc or grpcs URL, got \"ftp://127.0.0.1/\"",
		},
		{
			name: "target without scheme",
			spec: varBase + "    target: 127.0.0.1:9000\n",
			want: "spec.yaml:7: variants[0].target: expected an absolute http, https, grpc or grpcs URL, got \"127.0.0.1:9000\"; did you mean \"http://127.0.0.1:9000\"?",
		},
		{
			name: "ready with graph",
			spec: varBase + "    graph: graphs/chain.yaml\n    ready: http://127.0.0.1:9000/healthz\n",
			want: "spec.yaml:8: variants[0].ready: a graph is ready when its nodes answer; ready is for targets",
		},
		{
			name: "ready not a URL",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    ready: /healthz\n",
			want: "spec.yaml:8: variants[0].ready: expected an absolute http or https URL, got \"/healthz\"",
		},
		{
			name: "setup missing script",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    setup: ./nope.sh --fast\n",
			want: "spec.yaml:8: variants[0].setup: testdata/specs/nope.sh: no such file or directory",
		},
		{
			name: "setup not executable",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    setup: ./not-executable.sh\n",
			want: "spec.yaml:8: variants[0].setup: testdata/specs/not-executable.sh is not executable (chmod +x testdata/specs/not-executable.sh)",
		},
		{
			name: "configure not executable",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    configure: ./not-executable.sh --apply\n",
			want: "spec.yaml:8: variants[0].configure: testdata/specs/not-executable.sh is not executable (chmod +x testdata/specs/not-executable.sh)",
		},
		{
			name: "teardown blank",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    teardown: '  '\n",
			want: "spec.yaml:8: variants[0].teardown: empty",
		},
		{
			name: "ready_timeout not a duration",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    ready_timeout: soon\n",
			want: "spec.yaml:8: variants[0].ready_timeout: \"soon\" is not a duration such as 10s or 1m30s",
		},
		{
			name: "expect empty",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    expect: {}\n",
			want: "spec.yaml:8: variants[0].expect: expected at least one percentile, such as p99: 50ms",
		},
		{
			name: "expect not a percentile",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    expect: {median: 30ms}\n",
			want: "spec.yaml:8: variants[0].expect.median: unknown field: expected a percentile such as p50, p99 or p99.9",
		},
		{
			name: "expect a percentile no report reads",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    expect: {p50: 30ms, p75: 40ms}\n",
			want: "spec.yaml:8: variants[0].expect.p75: latlab reports p50, p90, p95, p99, p99.9 and p100 (the maximum) only",
		},
		{
			name: "baseline unknown",
			spec: loadBase + "baseline: b\n",
			want: "spec.yaml:8: baseline: no variant is called \"b\"",
		},
		{
			name: "base error reported once",
			spec: "version: 1\nname: t\nvariants:\n  - name: a\n    target: http://127.0.0.1:9000/\n    load: {path: /a}\n  - name: b\n    target: http://127.0.0.1:9001/\n    load: {duration: 5s}\nload:\n  rates: [x]\n",
			want: "spec.yaml:11: load.rates[0]: \"x\" is not a rate: want requests per second (0 or more), such as 100, or per a period, such as 100/s or 6000/m",
		},
		{
			name: "broken graph reported once",
			spec: varBase + "    graph: graphs/broken.yaml\n  - name: b\n    graph: graphs/broken.yaml\n",
			want: "testdata/specs/graphs/broken.yaml:4: services[0].script[0].busywork: \"ten\" is not a duration such as 10s or 1m30s",
		},
		{
			name: "variant concurrency without closed mode",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    load: {concurrency: [5]}\n",
			want: "spec.yaml:8: variants[0].load.concurrency: open mode takes rates, not concurrency; give mode: closed for a closed loop",
		},
		{
			name: "many at once",
			spec: "version: 3\nname: t t\nvariants:\n  - name: a\n    graph: graphs/nope.yaml\n  - name: a\n    target: http://127.0.0.1:9000/\nload:\n  rates: [0]\n  duration: 5\nruns: -1\n",
			want: "spec.yaml:1: version: unsupported version 3: this latlab reads version 1\n" +
				"spec.yaml:2: name: \"t t\" is not a name: use up to 63 letters, digits, '.', '_' and '-', starting with a letter or digit\n" +
				"spec.yaml:5: variants[0].graph: testdata/specs/graphs/nope.yaml: no such file or directory\n" +
				"spec.yaml:6: variants[1].name: duplicate variant \"a\" (also at line 4)\n" +
				"spec.yaml:9: load.rates[0]: want a positive rate, got 0\n" +
				"spec.yaml:10: load.duration: expected a duration such as 10s, got 5\n" +
				"spec.yaml:11: runs: -1 is less than 1",
		},
	})
}

func TestParseSpecAliasBomb(t *testing.T) {
	// 100 aliases of a variant whose rates alias a list of 1000: 10⁵
	// entries from a few kilobytes.
	var b strings.Builder
	b.WriteString("version: 1\nname: t\nload: {rates: [1]}\nx: &r [1")
	for i := 2; i <= 1000; i++ {
		b.WriteString(", " + strconv.Itoa(i))
	}
	b.WriteString("]\nvariants:\n  - &v {name: a, target: 'http://127.0.0.1:9000/', load: {rates: *r}}\n")
	for range 99 {
		b.WriteString("  - *v\n")
	}
	_, err := ParseSpec("spec.yaml", []byte(b.String()), "")
	if err == nil || !strings.Contains(err.Error(), "\nspec.yaml:4: too large: more than 65536 entries once aliases are expanded\n") {
		t.Fatalf("error %v, want too large", err)
	}
}

func TestParseSpecErrorsAreSyntaxErrors(t *testing.T) {
	spec := "version: 3\nname: t t\nvariants:\n  - name: a\n    graph: graphs/broken.yaml\nload: {rates: [0]}\n"
	_, err := ParseSpec("spec.yaml", []byte(spec), "testdata/specs")
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %T does not join errors", err)
	}
	errs := joined.Unwrap()
	if len(errs) != 4 {
		t.Fatalf("%d errors, want 4:\n%v", len(errs), err)
	}
	for _, e := range errs[:2] {
		var se *SyntaxError
		if !errors.As(e, &se) || se.File != "spec.yaml" || se.Line == 0 || se.Field == "" {
			t.Errorf("%v: want a *SyntaxError with file, line and field", e)
		}
	}
	if got := errs[2].Error(); !strings.HasPrefix(got, "testdata/specs/graphs/broken.yaml:4: ") {
		t.Errorf("graph error %q does not name the graph's file and line", got)
	}
}

// TestParseSpecGraphProblems checks that the problems of a graph the spec
// names are listed one by one, at the line of the spec that names it.
func TestParseSpecGraphProblems(t *testing.T) {
	dir := t.TempDir()
	graph := "services:\n- name: a\n  port: x\n  script: [{sleep: 10}]\n"
	if err := os.WriteFile(filepath.Join(dir, "g.yaml"), []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "version: 1\nname: t t\nvariants:\n  - name: a\n    graph: g.yaml\nload: {rates: [0]}\n"
	_, err := ParseSpec("spec.yaml", []byte(spec), dir)
	g := filepath.Join(dir, "g.yaml")
	want := []string{
		`spec.yaml:2: name: "t t" is not a name: use up to 63 letters, digits, '.', '_' and '-', starting with a letter or digit`,
		g + `:3: services[0].port: expected a whole number, got "x"`,
		g + ":4: services[0].script[0].sleep: expected a duration such as 10s, got 10",
		"spec.yaml:6: load.rates[0]: want a positive rate, got 0",
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != len(want) || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("error:\n%v\nwant %d problems:\n%s", err, len(want), strings.Join(want, "\n"))
	}
}
