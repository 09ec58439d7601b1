package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latlab/latlab/record"
)

// specOpts compare specs by what they say, not what they read.
var specOpts = cmp.Options{
	cmpopts.IgnoreUnexported(Spec{}, Load{}, CPUs{}),
	cmpopts.IgnoreFields(Variant{}, "Topology"),
}

func ptr[T any](v T) *T { return &v }

func TestParseSpecIssueExample(t *testing.T) {
	got, err := ReadSpec("testdata/specs/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := Load{
		Mode: Open, Rates: []float64{100, 200, 400}, Duration: 10 * time.Second, Interval: time.Second,
		Path: "/", Method: "GET", Timeout: 30 * time.Second, Streams: 100, Client: "lean",
	}
	external := base
	external.Path = "/busywork"
	want := &Spec{
		File:    "testdata/specs/full.yaml",
		Dir:     "testdata/specs",
		Version: 1,
		Name:    "filter-overhead",
		Variants: []Variant{
			{Name: "plain", Graph: "graphs/chain.yaml", ReadyTimeout: 30 * time.Second, Load: base},
			{Name: "filter", Graph: "graphs/chain-filter.yaml", ReadyTimeout: 30 * time.Second, Load: base},
			{
				Name: "external", Target: "http://127.0.0.1:9000/", Setup: "./start-proxy.sh", Teardown: "./stop-proxy.sh",
				Ready: "http://127.0.0.1:9000/healthz", ReadyTimeout: 30 * time.Second, Load: external,
				Overrides: []string{"path"}, Expect: []Percentile{{Name: "p50", Q: 0.5, Latency: 30 * time.Millisecond}},
			},
		},
		Baseline:  "plain",
		Load:      base,
		Warmup:    &Warmup{Duration: 5 * time.Second, Share: 1},
		Runs:      10,
		Order:     Interleaved,
		Restart:   Never,
		Sideloads: []Sideload{{Target: "http://127.0.0.1:9100/", Rate: 50}},
		Probes: Probes{
			Metrics: &Metrics{Interval: 5 * time.Second, Window: time.Minute},
			Prometheus: &Prometheus{URL: "http://127.0.0.1:9090", Step: 5 * time.Second,
				Queries: map[string]string{"filter_p99": "histogram_quantile(0.99, ...)"}},
			Process: &Process{CPUBudget: 0.75},
			Pprof:   &Pprof{At: 0.5, Seconds: 5},
			Traces:  true,
		},
		Validity: Validity{MaxErrorRatio: 0.01, MaxLagP99: 5 * time.Millisecond, MinAchieved: 0.99, CPUBudget: 0.75, MaxTrend: 0.1},
		SLO:      SLO{Latency: []Percentile{{Name: "p99", Q: 0.99, Latency: 50 * time.Millisecond}}, Errors: ptr(0.01)},
	}
	if diff := cmp.Diff(want, got, specOpts); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	for i, file := range []string{"testdata/specs/graphs/chain.yaml", "testdata/specs/graphs/chain-filter.yaml"} {
		top := got.Variants[i].Topology
		if top == nil || top.File != file || top.Entry() == nil || top.Entry().Name != "root" {
			t.Errorf("variant %s: topology %+v, want %s with entry root", got.Variants[i].Name, top, file)
		}
	}
	if got.Variants[2].Topology != nil {
		t.Error("target variant has a topology")
	}
}

func TestParseSpecDefaults(t *testing.T) {
	spec := "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/x'}]\nload: {rates: [5]}\n"
	got, err := ParseSpec("spec.yaml", []byte(spec), "")
	if err != nil {
		t.Fatal(err)
	}
	base := Load{Mode: Open, Rates: []float64{5}, Duration: DefaultDuration, Interval: DefaultInterval,
		Method: "GET", Timeout: DefaultTimeout, Streams: DefaultStreams, Client: "lean"}
	want := &Spec{
		File: "spec.yaml", Version: 1, Name: "t",
		Variants: []Variant{{Name: "a", Target: "http://127.0.0.1:9000/x", ReadyTimeout: DefaultReadyTimeout, Load: base}},
		Baseline: "a", Load: base, Runs: 1, Order: Interleaved, Restart: Never, Validity: DefaultValidity(),
	}
	if diff := cmp.Diff(want, got, specOpts); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
}

func TestParseSpecProbeDefaults(t *testing.T) {
	spec := loadBase + "probes:\n  metrics:\n  process: {}\n  pprof: {seconds: 2}\nvalidity: {cpu_budget: 0.5}\n"
	got, err := ParseSpec("spec.yaml", []byte(spec), "")
	if err != nil {
		t.Fatal(err)
	}
	want := Probes{
		Metrics: &Metrics{Interval: DefaultMetricsInterval, Window: DefaultMetricsWindow},
		Process: &Process{CPUBudget: 0.5},
		Pprof:   &Pprof{At: DefaultPprofAt, Seconds: 2},
	}
	if diff := cmp.Diff(want, got.Probes); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	// process.cpu_budget alone sets validity's too.
	got, err = ParseSpec("spec.yaml", []byte(loadBase+"probes: {process: {cpu_budget: 60%}}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Validity.CPUBudget != 0.6 || got.Probes.Process.CPUBudget != 0.6 {
		t.Errorf("cpu budgets %g and %g, want 0.6", got.Validity.CPUBudget, got.Probes.Process.CPUBudget)
	}
	// An API server's /metrics: a token and a CA, resolved against the
	// spec's folder and read when the probe starts.
	got, err = ParseSpec("spec.yaml", []byte(loadBase+"probes: {metrics: {urls: ['https://127.0.0.1:6443/metrics'], token_file: kube/token, cacert: kube/ca.crt, families: [apiserver_flowcontrol_current_inqueue_requests]}}\n"), "/specs")
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Probes.Metrics; m.TokenFile != "/specs/kube/token" || m.CACert != "/specs/kube/ca.crt" ||
		!slices.Equal(m.Families, []string{"apiserver_flowcontrol_current_inqueue_requests"}) {
		t.Errorf("token_file %q, cacert %q, families %q; want them in the spec's folder, and the family", m.TokenFile, m.CACert, m.Families)
	}
	_, err = ParseSpec("spec.yaml", []byte(loadBase+"probes: {metrics: {urls: ['https://127.0.0.1:6443/metrics'], families: ['a_seconds{filter=\"x\"}']}}\n"), "/specs")
	if want := `probes.metrics.families[0]: "a_seconds{filter=\"x\"}" is not a metric family's name`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a selector for a family name: %v, want %s", err, want)
	}
}

func TestParseSpecValues(t *testing.T) {
	tests := []struct {
		name string
		spec string
		get  func(*Spec) any
		want any
	}{
		{"rates as floats", "load:\n  rates: [0.5, 1e3, 20]\n", func(s *Spec) any { return s.Load.Rates }, []float64{0.5, 1000, 20}},
		{"requests only", "load: {rates: [1], requests: 1e6}\n", func(s *Spec) any { return [2]int64{int64(s.Load.Duration), s.Load.Requests} }, [2]int64{0, 1000000}},
		{"requests and duration", "load: {rates: [1], requests: 10, duration: 1m}\n", func(s *Spec) any { return s.Load.Duration }, time.Minute},
		{"method upper", "load: {rates: [1], method: post}\n", func(s *Spec) any { return s.Load.Method }, "POST"},
		{"headers canonical", "load: {rates: [1], headers: {content-type: a/b, host: h}}\n", func(s *Spec) any { return s.Load.Headers },
			map[string]string{"Content-Type": "a/b", "Host": "h"}},
		{"ramp", "load: {mode: ramp, concurrency: [300, 600], ramp: {burst: 50, every: 30s}}\n", func(s *Spec) any { return *s.Load.Ramp },
			RampStep{Burst: 50, Every: 30 * time.Second}},
		{"warmup share", "load: {rates: [1]}\nwarmup: {duration: 2s, rate: 50%}\n", func(s *Spec) any { return *s.Warmup },
			Warmup{Duration: 2 * time.Second, Share: 0.5}},
		{"warmup rate", "load: {rates: [1]}\nwarmup: {duration: 2s, rate: 100}\n", func(s *Spec) any { return *s.Warmup },
			Warmup{Duration: 2 * time.Second, Rate: 100}},
		{"seed zero", "load: {rates: [1]}\nseed: 0\n", func(s *Spec) any { return s.Seed }, ptr(int64(0))},
		{"percent as ratio", "load: {rates: [1]}\nvalidity: {max_error_ratio: 0.05, max_trend: 250%}\n",
			func(s *Spec) any { return [2]float64{s.Validity.MaxErrorRatio, s.Validity.MaxTrend} }, [2]float64{0.05, 2.5}},
		{"slo sorted", "load: {rates: [1]}\nslo: {p99.9: 80ms, p50: 10ms, errors: 0%}\n", func(s *Spec) any { return s.SLO },
			SLO{Latency: []Percentile{{Name: "p50", Q: 0.5, Latency: 10 * time.Millisecond}, {Name: "p99.9", Q: 0.999, Latency: 80 * time.Millisecond}}, Errors: ptr(0.0)}},
		{"cpus normalised", "load: {rates: [1]}\ncpus: {load: 0, targets: '3, 1-2'}\n", func(s *Spec) any { return [2]string{s.CPUs.Load, s.CPUs.Targets} },
			[2]string{"0", "1-3"}},
		{"cpus load only", "load: {rates: [1]}\ncpus: {load: 2-3}\n", func(s *Spec) any { return [2]string{s.CPUs.Load, s.CPUs.Targets} }, [2]string{"2-3", ""}},
		{"anchors", "x: &r [1, 2]\nload: {rates: *r}\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\n" + tt.spec
			s, err := ParseSpec("spec.yaml", []byte(spec), "")
			if tt.get == nil { // only x is unknown
				if err == nil || err.Error() != "spec.yaml:4: x: unknown field" {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.get(s)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSpecOverrides(t *testing.T) {
	spec := `version: 1
name: t
load:
  mode: closed
  concurrency: [10, 20]
  path: /a
  body: hello
variants:
  - name: closed
    target: http://127.0.0.1:9000/
  - name: open
    target: http://127.0.0.1:9000/
    load: {mode: open, rates: [5]}
  - name: scenario
    target: http://127.0.0.1:9000/
    load: {scenario: scenario.yaml, concurrency: [3]}
  - name: file
    target: http://127.0.0.1:9000/
    load: {body_file: body.json}
`
	s, err := ParseSpec("spec.yaml", []byte(spec), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Mode                       Mode
		Rates                      []float64
		Concurrency                []int
		Path, Body, File, Scenario string
		Overrides                  []string
	}
	var got []view
	for _, v := range s.Variants {
		l := v.Load
		got = append(got, view{l.Mode, l.Rates, l.Concurrency, l.Path, l.Body, l.BodyFile, l.Scenario, v.Overrides})
	}
	want := []view{
		{Mode: Closed, Concurrency: []int{10, 20}, Path: "/a", Body: "hello"},
		{Mode: Open, Rates: []float64{5}, Path: "/a", Body: "hello", Overrides: []string{"mode", "rates"}},
		{Mode: Closed, Concurrency: []int{3}, Scenario: "scenario.yaml", Overrides: []string{"concurrency", "scenario"}},
		{Mode: Closed, Concurrency: []int{10, 20}, Path: "/a", File: "body.json", Overrides: []string{"body_file"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("variant loads (-want +got):\n%s", diff)
	}
}

func TestParseSpecRelativePaths(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("graphs/g.yaml", "services: [{name: root}]\n", 0o644)
	write("exp/load/targets.txt", "POST http://x.invalid/t\n@bodies/b.json\n", 0o644)
	write("exp/load/bodies/b.json", "{}", 0o644)
	write("exp/bin/up.sh", "#!/bin/sh\n", 0o755)
	write("abs.yaml", "services: [{name: other}]\n", 0o644)
	write("exp/spec.yaml", `version: 1
name: paths
variants:
  - name: g
    graph: ../graphs/g.yaml
    setup: bin/up.sh --now
  - name: abs
    graph: `+filepath.Join(root, "abs.yaml")+`
load: {rates: [1], targets: load/targets.txt}
`, 0o644)
	s, err := ReadSpec(filepath.Join(root, "exp", "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Path(s.Variants[0].Graph), filepath.Join(root, "graphs", "g.yaml"); got != want {
		t.Errorf("graph at %s, want %s", got, want)
	}
	if got, want := s.Variants[0].Topology.Dir, filepath.Join(root, "graphs"); got != want {
		t.Errorf("topology folder %s, want %s", got, want)
	}
	if got, want := s.Path(s.Variants[1].Graph), filepath.Join(root, "abs.yaml"); got != want {
		t.Errorf("absolute graph at %s, want %s", got, want)
	}
	if got, want := s.Path(s.Load.Targets), filepath.Join(root, "exp", "load", "targets.txt"); got != want {
		t.Errorf("targets at %s, want %s", got, want)
	}
	cfg, err := s.LoadFor(Trial{Variant: "g", Level: record.Level{Rate: 1}, Rep: 1, Position: 1}, "http://127.0.0.1:8000")
	if err != nil {
		t.Fatal(err)
	}
	if req := staticRequests(t, cfg)[0]; string(req.Body) != "{}" || req.URL.String() != "http://127.0.0.1:8000/t" {
		t.Errorf("request %s %s, want the body of bodies/b.json sent to the entry", req.URL, req.Body)
	}
	// The same spec read from another folder hashes the same.
	data, err := os.ReadFile(filepath.Join(root, "exp", "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "exp"))
	again, err := ParseSpec("spec.yaml", data, ".")
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash() != s.Hash() {
		t.Errorf("hash differs when read from its folder:\n%s", Diff(s, again))
	}
}
