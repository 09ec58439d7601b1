package spec

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
)

// staticRequests returns the requests of cfg, which must be load.Static.
func staticRequests(t *testing.T, cfg load.Config) load.Static {
	t.Helper()
	s, ok := cfg.Source.(load.Static)
	if !ok {
		t.Fatalf("source %T, want load.Static", cfg.Source)
	}
	return s
}

// mustParse parses spec in testdata/specs.
func mustParse(t *testing.T, spec string) *Spec {
	t.Helper()
	s, err := ParseSpec("spec.yaml", []byte(spec), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// request describes a request for comparison.
type request struct {
	Method, URL, Host, Body string
	Header                  http.Header
}

func describeRequest(r *load.Request) request {
	return request{r.Method, r.URL.String(), r.Host, string(r.Body), r.Header}
}

func TestLoadForRequests(t *testing.T) {
	s := mustParse(t, `version: 1
name: t
variants:
  - name: target
    target: http://127.0.0.1:9000/base?x=1
  - name: path
    target: http://127.0.0.1:9000/base
    load: {path: '/busywork?ms=10', method: post, headers: {X-A: b, Host: example.com}, body: hi}
  - name: graph
    graph: graphs/chain.yaml
  - name: targets
    target: https://10.0.0.1:8443/
    load: {targets: targets.txt}
  - name: file
    graph: graphs/chain.yaml
    load: {body_file: body.json, path: /in}
load: {rates: [100]}
`)
	tests := []struct {
		variant, entry string
		want           []request
	}{
		{"target", "", []request{{Method: "GET", URL: "http://127.0.0.1:9000/base?x=1", Header: http.Header{}}}},
		{"path", "", []request{{Method: "POST", URL: "http://127.0.0.1:9000/busywork?ms=10", Host: "example.com", Body: "hi",
			Header: http.Header{"X-A": {"b"}}}}},
		{"graph", "http://127.0.0.1:4100", []request{{Method: "GET", URL: "http://127.0.0.1:4100/", Header: http.Header{}}}},
		{"targets", "", []request{
			{Method: "GET", URL: "https://10.0.0.1:8443/a", Header: http.Header{"X-Test": {"1"}}},
			{Method: "POST", URL: "https://10.0.0.1:8443/b", Body: "{\"a\":1}\n", Header: http.Header{"Content-Type": {"application/json"}}},
		}},
		{"file", "http://127.0.0.1:4100", []request{{Method: "GET", URL: "http://127.0.0.1:4100/in", Body: "{\"a\":1}\n", Header: http.Header{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			cfg, err := s.LoadFor(Trial{Variant: tt.variant, Level: record.Level{Rate: 100}, Rep: 1, Position: 3}, tt.entry)
			if err != nil {
				t.Fatal(err)
			}
			var got []request
			for _, r := range staticRequests(t, cfg) {
				got = append(got, describeRequest(r))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			again, _ := s.LoadFor(Trial{Variant: tt.variant, Level: record.Level{Rate: 100}, Rep: 1, Position: 3}, tt.entry)
			if staticRequests(t, again)[0] == staticRequests(t, cfg)[0] {
				t.Error("two configurations share a request")
			}
		})
	}
}

func TestLoadForScenario(t *testing.T) {
	s := mustParse(t, "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: {mode: closed, concurrency: [2], scenario: scenario.yaml}\n")
	cfg, err := s.LoadFor(Trial{Variant: "a", Level: record.Level{Concurrency: 2}, Rep: 1, Position: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Source.Steps(), []string{"create", "get"}; !cmp.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	var got []request
	for step := range 2 {
		r, err := cfg.Source.Request(step, load.Vars{Worker: 1, Iter: 2, Seq: 7})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, describeRequest(r))
	}
	want := []request{
		{Method: "POST", URL: "http://127.0.0.1:9000/objects/o-1-2", Body: `{"n":7}`, Header: http.Header{}},
		{Method: "GET", URL: "http://127.0.0.1:9000/objects/o-1-2", Header: http.Header{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestLoadForModels(t *testing.T) {
	codes, _ := record.ParseCodeSet("200-299")
	tests := []struct {
		name  string
		load  string
		trial Trial
		want  load.Config
	}{
		{"open", "{rates: [100], duration: 5s, max_in_flight: 50, interval: 2s, success: 200-299, pool: 8, realtime: true}", Trial{Level: record.Level{Rate: 100}},
			load.Config{Model: load.Open{Pacer: load.Constant{Rate: 100}, MaxInFlight: 50}, Duration: 5 * time.Second, Interval: 2 * time.Second, Success: &codes, Pool: 8, Realtime: load.RealtimeOn}},
		{"open, never real-time", "{rates: [100], realtime: false}", Trial{Level: record.Level{Rate: 100}},
			load.Config{Model: load.Open{Pacer: load.Constant{Rate: 100}}, Duration: DefaultDuration, Interval: time.Second, Realtime: load.RealtimeOff}},
		{"open, real-time while light", "{rates: [100], realtime: auto}", Trial{Level: record.Level{Rate: 100}},
			load.Config{Model: load.Open{Pacer: load.Constant{Rate: 100}}, Duration: DefaultDuration, Interval: time.Second, Realtime: load.RealtimeAuto}},
		{"poisson", "{rates: [100], arrivals: poisson}", Trial{Level: record.Level{Rate: 100}, Position: 9},
			load.Config{Model: load.Open{Pacer: &load.Poisson{Of: load.Constant{Rate: 100}, Seed: 9}}, Duration: DefaultDuration, Interval: time.Second}},
		{"closed", "{mode: closed, concurrency: [300], requests: 1000000}", Trial{Level: record.Level{Concurrency: 300}},
			load.Config{Model: load.Closed{Workers: 300}, Count: 1000000, Interval: time.Second}},
		{"ramp", "{mode: ramp, concurrency: [300], ramp: {burst: 50, every: 30s}, duration: 15m}", Trial{Level: record.Level{Concurrency: 300}},
			load.Config{Model: load.Ramp{Workers: 300, Burst: 50, Every: 30 * time.Second}, Duration: 15 * time.Minute, Interval: time.Second}},
		{"sequential", "{mode: sequential}", Trial{Level: record.Level{Concurrency: 1}},
			load.Config{Model: load.Sequential{}, Duration: DefaultDuration, Interval: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: "+tt.load+"\n")
			tt.trial.Variant = "a"
			got, err := s.LoadFor(tt.trial, "")
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Transport = load.Options{Timeout: DefaultTimeout, Streams: DefaultStreams}
			got.Source = nil
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(load.Poisson{}, record.CodeSet{})); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadForTransport(t *testing.T) {
	tests := []struct {
		load string
		want load.Options
	}{
		{"  timeout: 2s\n  connections: 8\n  no_keepalive: true\n  client: nethttp\n  insecure: true\n",
			load.Options{Timeout: 2 * time.Second, Connections: 8, NoKeepAlive: true, Streams: DefaultStreams, NetHTTP: true}},
		{"  timeout: 2s\n  h2c: true\n  streams: 10\n  insecure: true\n",
			load.Options{Timeout: 2 * time.Second, H2C: true, Streams: 10}},
	}
	for _, tt := range tests {
		s := mustParse(t, loadBase+tt.load)
		cfg, err := s.LoadFor(Trial{Variant: "a", Level: record.Level{Rate: 100}}, "")
		if err != nil {
			t.Fatal(err)
		}
		o := cfg.Transport
		if o.TLS == nil || !o.TLS.InsecureSkipVerify {
			t.Errorf("%s: insecure did not skip verification", tt.load)
		}
		o.TLS = nil
		if diff := cmp.Diff(tt.want, o); diff != "" {
			t.Errorf("%s: options (-want +got):\n%s", tt.load, diff)
		}
	}
}

func TestLoadForErrors(t *testing.T) {
	s := mustParse(t, "version: 1\nname: t\nvariants: [{name: g, graph: graphs/chain.yaml}, {name: c, target: 'http://127.0.0.1:9000/', load: {mode: closed, concurrency: [1]}}]\nload: {rates: [1]}\n")
	tests := []struct {
		trial Trial
		entry string
		want  string
	}{
		{Trial{Variant: "x", Level: record.Level{Rate: 1}, Position: 4}, "", `trial 4: no variant called "x"`},
		{Trial{Variant: "g", Level: record.Level{Rate: 1}}, "", `variant g runs a graph: the URL of its entry: expected an absolute http, https, grpc or grpcs URL, got ""`},
		{Trial{Variant: "g", Level: record.Level{Rate: 0}, Position: 2}, "http://127.0.0.1:1", "trial 2: open mode needs a rate above 0, got 0"},
		{Trial{Variant: "c", Position: 5}, "", "trial 5: closed mode needs a concurrency of at least 1, got 0"},
	}
	for _, tt := range tests {
		_, err := s.LoadFor(tt.trial, tt.entry)
		if err == nil || err.Error() != tt.want {
			t.Errorf("LoadFor(%+v, %q) = %v, want %s", tt.trial, tt.entry, err, tt.want)
		}
	}
}

func TestWarmupFor(t *testing.T) {
	tests := []struct {
		name   string
		spec   string
		trial  Trial
		want   load.Model
		exists bool
	}{
		{"none", "load: {rates: [100]}\n", Trial{Level: record.Level{Rate: 100}}, nil, false},
		{"same", "load: {rates: [100]}\nwarmup: {duration: 3s}\n", Trial{Level: record.Level{Rate: 100}}, load.Open{Pacer: load.Constant{Rate: 100}}, true},
		{"share of a rate", "load: {rates: [100]}\nwarmup: {duration: 3s, rate: 50%}\n", Trial{Level: record.Level{Rate: 100}}, load.Open{Pacer: load.Constant{Rate: 50}}, true},
		{"share of workers", "load: {mode: closed, concurrency: [50]}\nwarmup: {duration: 3s, rate: 10%}\n", Trial{Level: record.Level{Concurrency: 50}}, load.Closed{Workers: 5}, true},
		{"share of one worker", "load: {mode: closed, concurrency: [1]}\nwarmup: {duration: 3s, rate: 10%}\n", Trial{Level: record.Level{Concurrency: 1}}, load.Closed{Workers: 1}, true},
		{"share of a ramp", "load: {mode: ramp, concurrency: [300], ramp: {burst: 50, every: 1s}}\nwarmup: {duration: 3s, rate: 50%}\n", Trial{Level: record.Level{Concurrency: 300}},
			load.Ramp{Workers: 150, Burst: 50, Every: time.Second}, true},
		{"fixed rate in closed mode", "load: {mode: closed, concurrency: [50]}\nwarmup: {duration: 3s, rate: 20}\n", Trial{Level: record.Level{Concurrency: 50}},
			load.Open{Pacer: load.Constant{Rate: 20}}, true},
		{"sequential", "load: {mode: sequential}\nwarmup: {duration: 3s}\n", Trial{Level: record.Level{Concurrency: 1}}, load.Sequential{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\n"+tt.spec)
			tt.trial.Variant = "a"
			cfg, ok, err := s.WarmupFor(tt.trial, "")
			if err != nil || ok != tt.exists {
				t.Fatalf("WarmupFor = %v, %v, want %v", ok, err, tt.exists)
			}
			if !ok {
				return
			}
			if cfg.Duration != 3*time.Second || cfg.Count != 0 {
				t.Errorf("duration %s and count %d, want 3s and 0", cfg.Duration, cfg.Count)
			}
			if diff := cmp.Diff(tt.want, cfg.Model); diff != "" {
				t.Errorf("model (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSideloadConfig(t *testing.T) {
	cfg, err := Sideload{Target: "http://127.0.0.1:9100/x", Rate: 50}.Config(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	r := staticRequests(t, cfg)[0]
	if r.Method != "GET" || r.URL.String() != "http://127.0.0.1:9100/x" || cfg.Duration != time.Minute ||
		!cmp.Equal(cfg.Model, load.Model(load.Open{Pacer: load.Constant{Rate: 50}})) {
		t.Errorf("sideload config %+v, request %s %s", cfg, r.Method, r.URL)
	}
	if _, err := (Sideload{Target: "http://[::1", Rate: 1}).Config(time.Second); err == nil || !strings.HasPrefix(err.Error(), "sideload http://[::1: ") {
		t.Errorf("bad target: error %v", err)
	}
}
