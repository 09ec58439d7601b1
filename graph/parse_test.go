package graph

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// exampleFile is the topology of the package documentation, as a test
// reads it.
const exampleFile = "testdata/topology/example.yaml"

// abs returns path made absolute, or fails t.
func abs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// exampleTopology is what exampleFile holds.
func exampleTopology(t *testing.T) *Topology {
	t.Helper()
	return &Topology{
		File: exampleFile,
		Dir:  "testdata/topology",
		Services: []*Service{
			{Name: "gateway", Line: 2, Entry: true, Proxy: "root"},
			{
				Name: "root", Line: 5,
				Filters: []Filter{
					{Kind: FairQueue, Name: "fairqueue", Line: 8, FairQueue: &FairQueueSpec{
						Concurrency: 100, Queues: 64, HandSize: 6, QueueLength: 50, Header: "X-Remote-User",
						Levels: []Level{{Name: "workload", Shares: 3, Users: []string{"alice"}}, {Name: "global", Shares: 1}},
					}},
					{Kind: Delay, Name: "delay", Line: 10, Delay: &DelaySpec{User: "delay-adder", Duration: time.Second}},
					{Kind: Passthrough, Name: "passthrough", Line: 11},
				},
				Commands: map[string][]string{"date": {"date"}},
				Jobs:     map[string]string{"light": abs(t, "testdata/topology/jobs/light.job")},
				LoadJob:  "light",
				PrimeMax: 100000,
				Script: []Step{
					{Kind: Busywork, Line: 17, Duration: 2 * time.Millisecond},
					{Kind: Call, Line: 18, Name: "branch", Prob: 1},
				},
			},
			{Name: "branch", Line: 19, Script: []Step{{Kind: Parallel, Line: 21, Steps: []Step{
				{Kind: Call, Line: 21, Name: "leafA", Prob: 1},
				{Kind: Call, Line: 21, Name: "leafB", Prob: 0.5},
			}}}},
			{Name: "leafA", Line: 22, Script: []Step{
				{Kind: Sleep, Line: 23, Duration: time.Millisecond},
				{Kind: Payload, Line: 23, N: 4000},
			}},
			{Name: "leafB", Line: 24, Errors: &Errors{Rate: 0.01, Status: 503}, Resources: &Resources{CPU: "1", Memory: "256Mi"}},
		},
	}
}

func TestReadTopologyExample(t *testing.T) {
	got, err := ReadTopology(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(exampleTopology(t), got); diff != "" {
		t.Errorf("ReadTopology(%s) mismatch (-want +got):\n%s", exampleFile, diff)
	}
	wantEdges := [][2]string{{"branch", "leafA"}, {"branch", "leafB"}, {"gateway", "root"}, {"root", "branch"}}
	if diff := cmp.Diff(wantEdges, got.Edges()); diff != "" {
		t.Errorf("Edges() mismatch (-want +got):\n%s", diff)
	}
	if e := got.Entry(); e == nil || e.Name != "gateway" {
		t.Errorf("Entry() = %v, want gateway", e)
	}
}

// TestReadTopologyExamples checks that the examples people copy parse, and
// what the chain is.
func TestReadTopologyExamples(t *testing.T) {
	paths, err := filepath.Glob("../examples/graphs/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 2 {
		t.Fatalf("found %d examples, want at least 2", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			if _, err := ReadTopology(p); err != nil {
				t.Fatal(err)
			}
		})
	}
	chain, err := ReadTopology("../examples/graphs/chain.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"branch", "leaf"}, {"root", "branch"}}
	if diff := cmp.Diff(want, chain.Edges()); diff != "" {
		t.Errorf("chain Edges() mismatch (-want +got):\n%s", diff)
	}
	var work time.Duration
	for _, s := range chain.Services {
		work += s.Script[0].Duration
	}
	if work != 30*time.Millisecond {
		t.Errorf("chain busywork = %v, want 30ms", work)
	}
}

func TestParseTopologyValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Step // the script of the first service
	}{
		{"sizes", "services:\n- name: a\n  script: [{payload: 512}, {payload: 4KB}, {payload: 4kB}, {payload: 1MiB}, {payload: 1.5KiB}, " +
			"{payload: 2 MB}, {payload: 1GiB}, {payload: 3B}, {payload: 0x10}]",
			[]Step{{Kind: Payload, Line: 3, N: 512}, {Kind: Payload, Line: 3, N: 4000}, {Kind: Payload, Line: 3, N: 4000},
				{Kind: Payload, Line: 3, N: 1 << 20}, {Kind: Payload, Line: 3, N: 1536}, {Kind: Payload, Line: 3, N: 2e6},
				{Kind: Payload, Line: 3, N: 1 << 30}, {Kind: Payload, Line: 3, N: 3}, {Kind: Payload, Line: 3, N: 16}}},
		{"call options", "services:\n- name: a\n  script:\n  - {call: b, path: '/x?y=1', size: 1KiB, probability: 1}\n  - {call: b, probability: 0.25}\n- name: b",
			[]Step{{Kind: Call, Line: 4, Name: "b", Path: "/x?y=1", N: 1024, Prob: 1}, {Kind: Call, Line: 5, Name: "b", Prob: 0.25}}},
		{"numbers", "services:\n- name: a\n  script: [{prime: 1e6}, {prime: 1000}, {busywork: 1h}, {sleep: 1.5ms}]",
			[]Step{{Kind: Prime, Line: 3, N: 1e6}, {Kind: Prime, Line: 3, N: 1000},
				{Kind: Busywork, Line: 3, Duration: time.Hour}, {Kind: Sleep, Line: 3, Duration: 1500 * time.Microsecond}}},
		{"anchors", "services:\n- name: a\n  script: &s [{sleep: 1ms}]\n  commands: {x: &argv [echo, 1]}\n- name: b\n  script: *s\n  commands: {y: *argv}",
			[]Step{{Kind: Sleep, Line: 3, Duration: time.Millisecond}}},
		{"forks and stress", "services:\n- name: a\n  commands: {date: [date, -u]}\n  jobs: {light: jobs/light.job}\n  script: [{fork: date}, {stress: light}]",
			[]Step{{Kind: Fork, Line: 5, Name: "date"}, {Kind: Stress, Line: 5, Name: "light"}}},
		{"empty script", "services:\n- name: a\n  script: []", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, err := ParseTopology("graph.yaml", []byte(tt.in), "testdata/topology")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, top.Services[0].Script); diff != "" {
				t.Errorf("Script mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTopologyDefaults(t *testing.T) {
	in := `services:
- name: a
  calls: [b, c, b]
  errors: {rate: 1}
  filters: [{passthrough: {}}, {delay: {user: u, duration: 1ms, header: X-User}}, {passthrough: {}}, {passthrough: {}}]
  resources: {memory: 1Gi}
- name: b
  entry: false
  port: 8081
- name: c
  port: 0
- name: d
  port: 0
`
	top, err := ParseTopology("graph.yaml", []byte(in), "")
	if err != nil {
		t.Fatal(err)
	}
	a := top.Services[0]
	if diff := cmp.Diff([]string{"b", "c", "b"}, a.Calls); diff != "" {
		t.Errorf("Calls mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Errors{Rate: 1, Status: 500}, a.Errors); diff != "" {
		t.Errorf("Errors mismatch (-want +got):\n%s", diff)
	}
	var names []string
	for _, f := range a.Filters {
		names = append(names, f.Name)
	}
	if diff := cmp.Diff([]string{"passthrough", "delay", "passthrough-2", "passthrough-3"}, names); diff != "" {
		t.Errorf("filter names mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&DelaySpec{User: "u", Header: "X-User", Duration: time.Millisecond}, a.Filters[1].Delay); diff != "" {
		t.Errorf("Delay mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Resources{Memory: "1Gi"}, a.Resources); diff != "" {
		t.Errorf("Resources mismatch (-want +got):\n%s", diff)
	}
	if e := top.Entry(); e != a {
		t.Errorf("Entry() = %v, want the first service", e.Name)
	}
	if got := top.Services[1].Port; got != 8081 {
		t.Errorf("port of b = %d, want 8081", got)
	}
}

// TestReadTopologyJobs checks that job paths resolve against the
// topology's folder, not the working directory.
func TestReadTopologyJobs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"graphs/jobs/a.job", "shared/b.job", "c.job"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("run sequential\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := filepath.Join(dir, "c.job")
	in := "services:\n- name: a\n  jobs:\n    a: jobs/a.job\n    b: ../shared/b.job\n    c: " + c + "\n    d: ./jobs/../jobs/a.job\n"
	path := filepath.Join(dir, "graphs", "graph.yaml")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	top, err := ReadTopology(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": filepath.Join(dir, "graphs", "jobs", "a.job"),
		"b": filepath.Join(dir, "shared", "b.job"),
		"c": c,
		"d": filepath.Join(dir, "graphs", "jobs", "a.job"),
	}
	if diff := cmp.Diff(want, top.Services[0].Jobs); diff != "" {
		t.Errorf("Jobs mismatch (-want +got):\n%s", diff)
	}
	if top.Dir != filepath.Join(dir, "graphs") || top.File != path {
		t.Errorf("File, Dir = %q, %q; want %q, %q", top.File, top.Dir, path, filepath.Join(dir, "graphs"))
	}

	// The same file read from elsewhere does not find them.
	_, err = ParseTopology("graph.yaml", []byte(in), dir)
	want2 := `graph.yaml:4: services[0].jobs.a: cannot open "jobs/a.job": no such file or directory` + "\n" +
		`graph.yaml:5: services[0].jobs.b: cannot open "../shared/b.job": no such file or directory` + "\n" +
		`graph.yaml:7: services[0].jobs.d: cannot open "./jobs/../jobs/a.job": no such file or directory`
	if err == nil || err.Error() != want2 {
		t.Errorf("ParseTopology from the wrong folder: error %v, want %s", err, want2)
	}
}

func TestReadTopologyMissing(t *testing.T) {
	_, err := ReadTopology("testdata/topology/none.yaml")
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "reading topology: ") {
		t.Errorf("error %v, want reading topology: ... not exist", err)
	}
}

func TestParseTopologyErrors(t *testing.T) {
	data, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	example := string(data)
	// edit returns the example with old, met once, replaced by new.
	edit := func(old, new string) string {
		t.Helper()
		if n := strings.Count(example, old); n != 1 {
			t.Fatalf("%q is %d times in %s, want once", old, n, exampleFile)
		}
		return strings.Replace(example, old, new, 1)
	}
	const head = "services:\n- name: a\n" // the fields that follow are on line 3
	long := strings.Repeat("a", 64)
	var bomb strings.Builder // 2000 services that each alias a script of 1000 steps
	bomb.WriteString("services:\n- name: s0\n  script: &s [" + strings.Repeat("{sleep: 1ms}, ", 999) + "{sleep: 1ms}]\n")
	for i := 1; i < 2000; i++ {
		bomb.WriteString("- {name: s" + strconv.Itoa(i) + ", script: *s}\n")
	}
	tests := []struct {
		name, in, want string
	}{
		// The file as a whole.
		{"empty", "", "graph.yaml: no services"},
		{"only a comment", "# nothing\n", "graph.yaml: no services"},
		{"yaml syntax", "services: [\n", "graph.yaml:1: did not find expected node content"},
		{"two documents", "services: [{name: a}]\n---\nservices: [{name: b}]\n", "graph.yaml:2: more than one YAML document"},
		{"not a mapping", "- a\n", "graph.yaml:1: expected a mapping, got a sequence"},
		{"unknown top field", "service: []\n", "graph.yaml:1: service: unknown field; did you mean services?\ngraph.yaml:1: services: missing"},
		{"services not a list", "services: {a: 1}\n", "graph.yaml:1: services: expected a sequence, got a mapping"},
		{"no services", "services: []\n", "graph.yaml:1: services: expected at least one service"},
		{"aliases expand too far", bomb.String(), "graph.yaml:3: too large: more than 1048576 entries once aliases are expanded"},

		// Services.
		{"missing name", "services:\n- entry: true\n", "graph.yaml:2: services[0].name: missing"},
		{"null name", "services:\n- name:", "graph.yaml:2: services[0].name: expected a string, got null"},
		{"bad name", "services:\n- name: 1st\n", `graph.yaml:2: services[0].name: "1st" is not a valid name: use at most 63 letters, digits and '-', starting with a letter and ending with a letter or digit (it becomes a Kubernetes name)`},
		{"long name", "services:\n- name: " + long + "\n", `graph.yaml:2: services[0].name: "` + long + `" is not a valid name: use at most 63 letters, digits and '-', starting with a letter and ending with a letter or digit (it becomes a Kubernetes name)`},
		{"unknown field", head + "  scrip: []\n", "graph.yaml:3: services[0].scrip: unknown field; did you mean script?"},
		{"duplicate field", head + "  name: b\n", "graph.yaml:3: services[0].name: duplicate field"},
		{"merge key", head + "  <<: {port: 1}\n", "graph.yaml:3: services[0]: merge keys (<<) are not supported"},
		{"duplicate service", edit("name: leafB", "name: leafA"), `graph.yaml:21: services[2].script[0][1].call: unknown service "leafB"` + "\n" + `graph.yaml:24: services[4].name: duplicate service "leafA" (also at line 22)`},
		{"names equal in lowercase", edit("name: leafB", "name: leafa"), `graph.yaml:21: services[2].script[0][1].call: unknown service "leafB"` + "\n" + "graph.yaml:24: services[4].name: leafa and leafA (line 22) would have the same Kubernetes name"},
		{"entry not a bool", edit("entry: true", "entry: yes"), `graph.yaml:3: services[0].entry: expected true or false, got "yes"`},
		{"bad protocol", head + "  protocol: http2\n", `graph.yaml:3: services[0].protocol: "http2" is not a protocol: expected http or grpc`},
		{"status of a gRPC service", head + "  protocol: grpc\n  errors: {rate: 0.1, status: 503}\n",
			"graph.yaml:4: services[0].errors.status: a gRPC service fails with a code, such as code: UNAVAILABLE, not an HTTP status"},
		{"code of an HTTP service", head + "  errors: {rate: 0.1, code: UNAVAILABLE}\n",
			"graph.yaml:3: services[0].errors.code: an HTTP service fails with a status, such as status: 503; code is for protocol: grpc"},
		{"bad code", head + "  protocol: grpc\n  errors: {rate: 0.1, code: Unavailable}\n",
			`graph.yaml:4: services[0].errors.code: "Unavailable" is not the name of a gRPC error code, such as UNAVAILABLE, INTERNAL or RESOURCE_EXHAUSTED`},
		{"OK is no error", head + "  protocol: grpc\n  errors: {rate: 0.1, code: OK}\n",
			`graph.yaml:4: services[0].errors.code: "OK" is not the name of a gRPC error code, such as UNAVAILABLE, INTERNAL or RESOURCE_EXHAUSTED`},
		{"proxy across protocols", "services:\n- {name: a, proxy: b}\n- {name: b, protocol: grpc}\n",
			"graph.yaml:2: services[0].proxy: a speaks http and b grpc: a proxy passes calls on as they came, so both speak the same protocol"},
		{"path of a gRPC call", "services:\n- {name: a, script: [{call: b, path: /sleep}]}\n- {name: b, protocol: grpc}\n",
			"graph.yaml:2: services[0].script[0].call: b speaks gRPC: a call runs its script (latlab.graph.v1.Node/Run), so it takes no path"},
		{"two entries", "services:\n- {name: a, entry: true}\n- {name: b, entry: true}\n", "graph.yaml:3: services[1].entry: a is the entry already"},
		{"port too high", edit("port: 0", "port: 70000"), "graph.yaml:6: services[1].port: 70000 is more than 65535"},
		{"port negative", head + "  port: -1\n", "graph.yaml:3: services[0].port: -1 is less than 0"},
		{"port not a number", head + "  port: http\n", `graph.yaml:3: services[0].port: expected a whole number, got "http"`},
		{"port taken", "services:\n- {name: a, port: 8080}\n- {name: b, port: 8080}\n", "graph.yaml:3: services[1].port: port 8080 is also the port of a"},
		{"prime_max zero", edit("prime_max: 100000", "prime_max: 0"), "graph.yaml:15: services[1].prime_max: 0 is less than 1"},
		{"script and calls", head + "  script: []\n  calls: []\n", "graph.yaml:4: services[0].calls: give script or calls, not both"},
		{"proxy with a script", edit("proxy: root\n", "proxy: root\n    script: [{sleep: 1ms}]\n"), "graph.yaml:5: services[0].script: a proxy has no script: it forwards every request to root"},
		{"proxy with load_job", "services:\n- {name: a, load_job: x, proxy: b}\n- {name: b}\n", "graph.yaml:2: services[0].load_job: a proxy has no load_job: it forwards every request to b\n" + `graph.yaml:2: services[0].load_job: unknown job "x"; the service has no jobs`},

		// Calls and cycles.
		{"unknown call", edit("call: branch", "call: brunch"), `graph.yaml:18: services[1].script[1].call: unknown service "brunch"`},
		{"unknown in calls", head + "  calls: [b]\n", `graph.yaml:3: services[0].calls[0]: unknown service "b"`},
		{"unknown proxy", edit("proxy: root", "proxy: rot"), `graph.yaml:4: services[0].proxy: unknown service "rot"`},
		{"calls not strings", head + "  calls: [{b: 1}]\n", "graph.yaml:3: services[0].calls[0]: expected a string, got a mapping"},
		{"self call", head + "  script: [{call: a}]\n", "graph.yaml:3: services[0].script[0].call: a calls itself"},
		{"self proxy", "services:\n- {name: a, proxy: a}\n", "graph.yaml:2: services[0].proxy: a calls itself"},
		{"cycle", edit("{call: leafA}", "{call: root}"), "graph.yaml:21: services[2].script[0][0].call: cycle: root → branch → root"},
		{"cycle through proxy, calls and parallel", "services:\n- {name: a, proxy: b}\n- {name: b, calls: [c]}\n- name: c\n  script:\n  - [{sleep: 1ms}, {call: a}]\n",
			"graph.yaml:6: services[2].script[0][1].call: cycle: a → b → c → a"},

		// Steps.
		{"bad duration", edit("busywork: 2ms", "busywork: 2xs"), `graph.yaml:17: services[1].script[0].busywork: "2xs" is not a duration such as 10s or 1m30s`},
		{"duration without unit", head + "  script: [{sleep: 10}]\n", "graph.yaml:3: services[0].script[0].sleep: expected a duration such as 10s, got 10"},
		{"zero duration", head + "  script: [{sleep: 0s}]\n", "graph.yaml:3: services[0].script[0].sleep: 0s is not positive"},
		{"long duration", head + "  script: [{busywork: 61m}]\n", "graph.yaml:3: services[0].script[0].busywork: 61m is more than 1h"},
		{"prime too big", head + "  script: [{prime: 2e9}]\n", "graph.yaml:3: services[0].script[0].prime: 2000000000 is more than 1000000000"},
		{"prime fraction", head + "  script: [{prime: 1.5}]\n", "graph.yaml:3: services[0].script[0].prime: 1.5 is not a whole number in range"},
		{"prime text", head + "  script: [{prime: many}]\n", `graph.yaml:3: services[0].script[0].prime: expected a whole number, got "many"`},
		{"payload too big", edit("payload: 4KB", "payload: 2GiB"), `graph.yaml:23: services[3].script[1].payload: "2GiB" is more than 1GiB`},
		{"payload unit", head + "  script: [{payload: 4XB}]\n", `graph.yaml:3: services[0].script[0].payload: "4XB" is not a size (such as 512, 4KB or 1MiB)`},
		{"payload fraction of a byte", head + "  script: [{payload: 1.5B}]\n", `graph.yaml:3: services[0].script[0].payload: "1.5B" is not a size (such as 512, 4KB or 1MiB)`},
		{"payload zero", head + "  script: [{payload: 0}]\n", `graph.yaml:3: services[0].script[0].payload: "0" is less than 1`},
		{"payload list", head + "  script: [{payload: [1]}]\n", "graph.yaml:3: services[0].script[0].payload: expected a size such as 512, 4KB or 1MiB, got a sequence"},
		{"two step kinds", head + "  script: [{sleep: 1ms, busywork: 1ms}]\n", "graph.yaml:3: services[0].script[0]: more than one step kind: sleep and busywork; give each its own list item"},
		{"no step kind", head + "  script:\n  - {}\n", "graph.yaml:4: services[0].script[0]: no step kind: expected one of busywork, prime, sleep, fork, stress, payload or call"},
		{"option of a call", head + "  script: [{sleep: 1ms, probability: 0.5}]\n", "graph.yaml:3: services[0].script[0].probability: only a call step takes probability"},
		{"unknown step field", head + "  script:\n  - call: b\n    weight: 2\n- name: b\n", "graph.yaml:5: services[0].script[0].weight: unknown field"},
		{"step not a mapping", head + "  script: [busywork]\n", "graph.yaml:3: services[0].script[0]: expected a step such as {sleep: 1ms}, or a list of steps to run concurrently, got a string"},
		{"nested parallel", head + "  script: [[[{sleep: 1ms}]]]\n", "graph.yaml:3: services[0].script[0][0]: a parallel list holds steps, not lists"},
		{"empty parallel", head + "  script: [[]]\n", "graph.yaml:3: services[0].script[0]: empty parallel list"},
		{"script not a list", head + "  script: {sleep: 1ms}\n", "graph.yaml:3: services[0].script: expected a sequence, got a mapping"},
		{"probability zero", edit("probability: 0.5", "probability: 0"), "graph.yaml:21: services[2].script[0][1].probability: 0 is not in (0, 1]"},
		{"probability text", edit("probability: 0.5", "probability: half"), `graph.yaml:21: services[2].script[0][1].probability: expected a number, got "half"`},
		{"probability infinite", edit("probability: 0.5", "probability: .inf"), "graph.yaml:21: services[2].script[0][1].probability: expected a finite number, got .inf"},
		{"relative call path", head + "  script: [{call: b, path: x}]\n- name: b\n", `graph.yaml:3: services[0].script[0].path: "x" does not start with /`},
		{"call path with a space", head + "  script: [{call: b, path: '/a b'}]\n- name: b\n", `graph.yaml:3: services[0].script[0].path: "/a b" holds a space or control character`},
		{"call size", head + "  script: [{call: b, size: lots}]\n- name: b\n", `graph.yaml:3: services[0].script[0].size: "lots" is not a size (such as 512, 4KB or 1MiB)`},
		{"empty call", head + "  script: [{call: ''}]\n", "graph.yaml:3: services[0].script[0].call: empty"},

		// Commands and jobs.
		{"unknown command", edit("busywork: 2ms", "fork: ls"), `graph.yaml:17: services[1].script[0].fork: unknown command "ls" (commands: date)`},
		{"no commands", head + "  script: [{fork: ls}]\n", `graph.yaml:3: services[0].script[0].fork: unknown command "ls"; the service has no commands`},
		{"unknown stress job", edit("busywork: 2ms", "stress: heavy"), `graph.yaml:17: services[1].script[0].stress: unknown job "heavy" (jobs: light)`},
		{"unknown load job", edit("load_job: light", "load_job: heavy"), `graph.yaml:14: services[1].load_job: unknown job "heavy" (jobs: light)`},
		{"empty command", edit("commands: {date: [date]}", "commands: {date: []}"), "graph.yaml:12: services[1].commands.date: expected a command and its arguments, got an empty list"},
		{"command not a list", head + "  commands: {date: date}\n", "graph.yaml:3: services[0].commands.date: expected a sequence, got a string"},
		{"command argument", head + "  commands: {date: [date, {a: 1}]}\n", "graph.yaml:3: services[0].commands.date[1]: expected a string, got a mapping"},
		{"missing job file", edit("jobs/light.job", "jobs/heavy.job"), `graph.yaml:13: services[1].jobs.light: cannot open "jobs/heavy.job": no such file or directory`},
		{"job is a folder", head + "  jobs: {x: jobs}\n", `graph.yaml:3: services[0].jobs.x: "jobs" is not a regular file`},

		// Filters.
		{"filter not a mapping", head + "  filters: [passthrough]\n", "graph.yaml:3: services[0].filters[0]: expected a filter such as {passthrough: {}}, got a string"},
		{"unknown filter", edit("passthrough: {}", "gzip: {}"), "graph.yaml:11: services[1].filters[2].gzip: unknown filter: expected delay, fairqueue or passthrough"},
		{"two filters in one", head + "  filters: [{passthrough: {}, delay: {}}]\n", "graph.yaml:3: services[0].filters[0]: more than one filter: passthrough and delay; give each its own list item"},
		{"no filter", head + "  filters: [{}]\n", "graph.yaml:3: services[0].filters[0]: no filter: expected delay, fairqueue or passthrough"},
		{"passthrough field", edit("passthrough: {}", "passthrough: {x: 1}"), "graph.yaml:11: services[1].filters[2].passthrough.x: unknown field: passthrough takes none"},
		{"passthrough null", edit("passthrough: {}", "passthrough:"), "graph.yaml:11: services[1].filters[2].passthrough: expected a mapping, got null"},
		{"delay without user", edit("user: delay-adder, ", ""), "graph.yaml:10: services[1].filters[1].delay.user: missing"},
		{"delay without duration", edit(", duration: 1s}", "}"), "graph.yaml:10: services[1].filters[1].delay.duration: missing"},
		{"delay method in lower case", edit("duration: 1s}", "duration: 1s, methods: [POST, put]}"), `graph.yaml:10: services[1].filters[1].delay.methods[1]: "put" is not an HTTP method as requests send it (GET, POST, PUT, PATCH, DELETE, ...)`},
		{"delay too long", edit("duration: 1s}", "duration: 2h}"), "graph.yaml:10: services[1].filters[1].delay.duration: 2h is more than 1h"},
		{"bad header", edit("header: X-Remote-User", "header: X Remote User"), `graph.yaml:8: services[1].filters[0].fairqueue.header: "X Remote User" is not a header name`},
		{"no concurrency", edit("concurrency: 100, ", ""), "graph.yaml:8: services[1].filters[0].fairqueue.concurrency: missing"},
		{"queue_length text", edit("queue_length: 50", `queue_length: "50"`), `graph.yaml:8: services[1].filters[0].fairqueue.queue_length: expected a whole number, got "50"`},
		{"handsize over queues", edit("handsize: 6", "handsize: 65"), "graph.yaml:8: services[1].filters[0].fairqueue.handsize: 65 is more than queues (64)"},
		{"no levels", head + "  filters: [{fairqueue: {concurrency: 1, queues: 1, handsize: 1, queue_length: 1}}]\n", "graph.yaml:3: services[0].filters[0].fairqueue.levels: missing"},
		{"empty levels", head + "  filters: [{fairqueue: {concurrency: 1, queues: 1, handsize: 1, queue_length: 1, levels: []}}]\n", "graph.yaml:3: services[0].filters[0].fairqueue.levels: expected at least one level"},
		{"zero shares", edit("shares: 3", "shares: 0"), "graph.yaml:9: services[1].filters[0].fairqueue.levels[0].shares: 0 is less than 1"},
		{"duplicate level", edit("name: global", "name: workload"), `graph.yaml:9: services[1].filters[0].fairqueue.levels[1].name: duplicate level "workload"`},
		{"user in two levels", edit("{name: global, shares: 1}", "{name: global, shares: 1, users: [alice]}"), `graph.yaml:9: services[1].filters[0].fairqueue.levels[1].users[0]: user "alice" is in level workload already`},
		{"level without users", edit(", users: [alice]", ""), "graph.yaml:9: services[1].filters[0].fairqueue.levels[0].users: missing: only the last level takes everyone else"},

		// Errors and resources.
		{"error rate", edit("rate: 0.01", "rate: 1.5"), "graph.yaml:25: services[4].errors.rate: 1.5 is not between 0 and 1"},
		{"error status", edit("status: 503", "status: 600"), "graph.yaml:25: services[4].errors.status: 600 is more than 599"},
		{"error rate missing", edit("rate: 0.01, ", ""), "graph.yaml:25: services[4].errors.rate: missing"},
		{"errors field", head + "  errors: {rate: 0, cod: 500}\n", "graph.yaml:3: services[0].errors.cod: unknown field; did you mean code?"},
		{"HTTP status as a code", head + "  errors: {rate: 0, code: 500}\n",
			"graph.yaml:3: services[0].errors.code: 500 is an HTTP status: an HTTP service fails with status: 500, a gRPC one with a code such as UNAVAILABLE"},
		{"bad cpu", edit(`cpu: "1"`, "cpu: lots"), `graph.yaml:26: services[4].resources.cpu: "lots" is not a Kubernetes quantity (such as 500m, 2 or 256Mi)`},
		{"negative memory", edit("memory: 256Mi", "memory: -1Gi"), `graph.yaml:26: services[4].resources.memory: "-1Gi" is not positive`},
		{"no resources", head + "  resources: {}\n", "graph.yaml:3: services[0].resources: give cpu, memory or both"},

		// Every problem of the file, by line.
		{"every problem", "services:\n- name: a\n  port: http\n  script: [{sleep: 10}, {call: b}, {call: c}]\n- name: b\n  entry: yes\n  filters: [{delay: {user: u}}]\n- {name: B, calls: [a]}\n",
			`graph.yaml:3: services[0].port: expected a whole number, got "http"` + "\n" +
				"graph.yaml:4: services[0].script[0].sleep: expected a duration such as 10s, got 10\n" +
				`graph.yaml:4: services[0].script[2].call: unknown service "c"` + "\n" +
				`graph.yaml:6: services[1].entry: expected true or false, got "yes"` + "\n" +
				"graph.yaml:7: services[1].filters[0].delay.duration: missing\n" +
				"graph.yaml:8: services[2].name: B and b (line 5) would have the same Kubernetes name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, err := ParseTopology("graph.yaml", []byte(tt.in), "testdata/topology")
			if err == nil {
				t.Fatalf("got %d services and no error, want %s", len(top.Services), tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tt.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("error is %T, want *SyntaxError", err)
			}
		})
	}
}
