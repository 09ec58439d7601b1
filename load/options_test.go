package load

import (
	"errors"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSettingsValidate(t *testing.T) {
	tests := []struct {
		option string // "" means valid
		set    func(*Settings)
	}{
		{"", func(*Settings) {}},
		{"", func(s *Settings) { s.Rates, s.Stages = []float64{0}, []Stage{{Duration: time.Second, Target: 5}} }},
		{"mode", func(s *Settings) { s.Mode = "burst" }},
		{"rates", func(s *Settings) { s.Rates = []float64{10, 0} }},
		{"rates", func(s *Settings) { s.Rates = []float64{-1} }},
		{"concurrency", func(s *Settings) { s.Concurrency = []int{0} }},
		{"ramp", func(s *Settings) { s.Ramp = &RampStep{Burst: 0, Every: time.Second} }},
		{"arrivals", func(s *Settings) { s.Arrivals = "uniform" }},
		{"max_in_flight", func(s *Settings) { s.MaxInFlight = -1 }},
		{"requests", func(s *Settings) { s.Requests = -1 }},
		{"duration", func(s *Settings) { s.Duration = -time.Second }},
		{"warmup", func(s *Settings) { s.Warmup = -time.Second }},
		{"interval", func(s *Settings) { s.Interval = 0 }},
		{"success", func(s *Settings) { s.Success = "99" }},
		{"timeout", func(s *Settings) { s.Timeout = 0 }},
		{"connections", func(s *Settings) { s.Connections = -1 }},
		{"streams", func(s *Settings) { s.Streams = 0 }},
		{"h2c", func(s *Settings) { s.HTTP2, s.H2C = true, true }},
		{"samples", func(s *Settings) { s.Samples = -1 }},
		{"client", func(s *Settings) { s.Client = "curl" }},
		// The upper bounds: at the bound is fine, past it is not.
		{"", func(s *Settings) {
			s.Mode, s.Rates, s.Concurrency = ModeRamp, nil, []int{MaxCount}
			s.Ramp = &RampStep{Burst: MaxCount, Every: MaxDuration}
			s.MaxInFlight, s.Connections, s.Streams, s.Requests = MaxCount, MaxCount, MaxStreams, MaxRequests
			s.Duration, s.Warmup, s.Interval, s.Timeout = MaxDuration, MaxDuration, MaxDuration, MaxDuration
		}},
		{"", func(s *Settings) { s.Rates = []float64{MaxRate} }},
		{"concurrency", func(s *Settings) { s.Concurrency = []int{MaxCount + 1} }},
		{"rates", func(s *Settings) { s.Rates = []float64{10, 2e9} }},
		{"ramp", func(s *Settings) { s.Ramp = &RampStep{Burst: MaxCount + 1, Every: time.Second} }},
		{"ramp", func(s *Settings) { s.Ramp = &RampStep{Burst: 1, Every: MaxDuration + 1} }},
		{"max_in_flight", func(s *Settings) { s.MaxInFlight = MaxCount + 1 }},
		{"requests", func(s *Settings) { s.Requests = MaxRequests + 1 }},
		{"duration", func(s *Settings) { s.Duration = 48 * time.Hour }},
		{"warmup", func(s *Settings) { s.Warmup = 48 * time.Hour }},
		{"interval", func(s *Settings) { s.Interval = 48 * time.Hour }},
		{"timeout", func(s *Settings) { s.Timeout = 48 * time.Hour }},
		{"connections", func(s *Settings) { s.Connections = MaxCount + 1 }},
		{"streams", func(s *Settings) { s.Streams = MaxStreams + 1 }},
		// The method is an HTTP token, in any case.
		{"", func(s *Settings) { s.Method = "purge" }},
		{"method", func(s *Settings) { s.Method = "" }},
		{"method", func(s *Settings) { s.Method = "GE T" }},
		{"method", func(s *Settings) { s.Method = "GET(1)" }},
	}
	for _, tt := range tests {
		s := Defaults()
		s.Rates = []float64{100}
		tt.set(&s)
		err := s.Validate()
		var oe *OptionError
		switch {
		case tt.option == "" && err != nil:
			t.Errorf("%+v: %v, want nil", s, err)
		case tt.option != "" && !errors.As(err, &oe):
			t.Errorf("want an error naming %s, got %v", tt.option, err)
		case tt.option != "" && oe.Option != tt.option:
			t.Errorf("error %q names %s, want %s", err, oe.Option, tt.option)
		}
	}
}

// TestSettingsValidateEvery holds that Validate names every problem, in
// its order, each list item by its place, and First the first of them.
func TestSettingsValidateEvery(t *testing.T) {
	s := Defaults()
	s.Concurrency = []int{4, 0, 4}
	s.Rates = []float64{5, 5, -1}
	s.Arrivals, s.Streams, s.Client = "uniform", 0, "curl"
	err := s.Validate()
	var got []string
	for _, p := range Problems(err) {
		got = append(got, p.Error())
	}
	want := []string{
		"concurrency[1]: want at least 1, got 0",
		"concurrency[2]: duplicate concurrency 4",
		`arrivals: want constant or poisson, got "uniform"`,
		"rates[1]: duplicate rate 5",
		"rates[2]: want a positive rate, got -1",
		"streams: want at least 1, got 0",
		`client: want lean or nethttp, got "curl"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if first := First(err); first == nil || first.Error() != want[0] {
		t.Errorf("First = %v, want %s", first, want[0])
	}
	valid := Defaults()
	if err := valid.Validate(); err != nil || First(err) != nil || Problems(err) != nil {
		t.Errorf("defaults: %v, want no problem", err)
	}
	// A duration, request count, cap or connection limit of 0 means none,
	// unless it was given.
	got = nil
	for _, p := range Problems(valid.Validate("duration", "requests", "max_in_flight", "connections")) {
		got = append(got, p.Option)
	}
	if want := []string{"max_in_flight", "requests", "duration", "connections"}; !slices.Equal(got, want) {
		t.Errorf("0 given: problems of %v, want %v", got, want)
	}
}

func TestSettingsModel(t *testing.T) {
	ramp := Defaults()
	ramp.Mode, ramp.Ramp = ModeRamp, &RampStep{Burst: 5, Every: time.Second}
	poisson := Defaults()
	poisson.Arrivals, poisson.Seed, poisson.MaxInFlight = PoissonArrivals, 7, 30
	staged := Defaults()
	staged.Stages = []Stage{{Duration: time.Second, Target: 50}}
	closed := Defaults()
	closed.Mode = ModeClosed
	seq := Defaults()
	seq.Mode = ModeSequential
	tests := []struct {
		name    string
		s       Settings
		rate    float64
		workers int
		want    Model
	}{
		{"open", Defaults(), 100, 0, Open{Pacer: Constant{Rate: 100}}},
		{"poisson", poisson, 100, 0, Open{Pacer: &Poisson{Of: Constant{Rate: 100}, Seed: 7}, MaxInFlight: 30}},
		{"stages from 0", staged, 0, 0, Open{Pacer: Stages{Steps: staged.Stages}}},
		{"closed", closed, 0, 8, Closed{Workers: 8}},
		{"ramp", ramp, 0, 20, Ramp{Workers: 20, Burst: 5, Every: time.Second}},
		{"sequential", seq, 0, 0, Sequential{}},
	}
	for _, tt := range tests {
		got, err := tt.s.Model(tt.rate, tt.workers)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(Poisson{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, bad := range []struct {
		s       Settings
		rate    float64
		workers int
		want    string
	}{
		{Defaults(), 0, 0, "open mode needs a rate above 0, got 0"},
		{closed, 0, 0, "closed mode needs a concurrency of at least 1, got 0"},
		{Settings{Mode: "burst"}, 1, 1, `unknown mode "burst"`},
	} {
		if _, err := bad.s.Model(bad.rate, bad.workers); err == nil || err.Error() != bad.want {
			t.Errorf("%+v: error %v, want %s", bad.s, err, bad.want)
		}
	}
}

func TestSettingsConfig(t *testing.T) {
	s := Defaults()
	s.Rates, s.Requests, s.Success, s.Samples, s.Warmup = []float64{5}, 9, "200-299", 3, time.Second
	s.Client, s.Streams, s.Insecure = NetHTTPClient, 7, true
	m, err := s.Model(s.Rates[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config(Static{}, m)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Count != 9 || cfg.KeepRaw != 3 || cfg.Warmup != time.Second || cfg.Interval != DefaultInterval ||
		cfg.Success == nil || cfg.Success.Has(300) || !cfg.Success.Has(204) {
		t.Errorf("config %+v", cfg)
	}
	o := cfg.Transport
	if !o.NetHTTP || o.Streams != 7 || o.Timeout != DefaultTimeout || o.TLS == nil || !o.TLS.InsecureSkipVerify {
		t.Errorf("transport %+v", o)
	}
}

func TestSettingsRequest(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:9000/own?q=1")
	s := Defaults()
	s.Method, s.Headers, s.Body = "POST", map[string]string{"Content-Type": "a/b", "Host": "h"}, "x"
	got := s.Request(base)
	if got.Method != "POST" || got.URL.String() != "http://127.0.0.1:9000/own?q=1" || got.Host != "h" ||
		got.Header.Get("Content-Type") != "a/b" || len(got.Header) != 1 || string(got.Body) != "x" {
		t.Errorf("request %+v", got)
	}
	s.Path = "/p?r=2"
	s.Inputs().Body = []byte("from file")
	got = s.Request(base)
	if got.URL.String() != "http://127.0.0.1:9000/p?r=2" || string(got.Body) != "from file" || base.Path != "/own" {
		t.Errorf("with path and body file: %+v, base %s", got, base)
	}
}

// TestSettingsConflicts holds which options the others make
// meaningless, in Conflicts' order, and how a message names the options
// it refers to: as a spec does by default, or as a caller spells them.
func TestSettingsConflicts(t *testing.T) {
	tests := []struct {
		set   func(*Settings)
		given []string
		want  []string // the problems' options; nil means none
	}{
		{func(*Settings) {}, nil, nil},
		{func(*Settings) {}, []string{"streams", "client", "connections", "seed"}, []string{"streams", "seed"}},
		{func(s *Settings) { s.H2C = true }, []string{"streams"}, nil},
		{func(s *Settings) { s.HTTP2 = true }, []string{"streams"}, nil},
		{func(s *Settings) { s.Client = NetHTTPClient }, []string{"client"}, nil},
		{func(s *Settings) { s.HTTP2 = true }, []string{"client"}, []string{"client"}},
		{func(s *Settings) { s.H2C = true }, nil, nil}, // the default client is no conflict
		{func(s *Settings) { s.NoKeepAlive = true }, nil, nil},
		{func(s *Settings) { s.NoKeepAlive, s.H2C = true, true }, nil, []string{"no_keepalive"}},
		{func(s *Settings) { s.Mode = ModeSequential }, []string{"connections"}, []string{"connections"}},
		{func(s *Settings) { s.Mode = ModeSequential }, nil, nil},
		{func(s *Settings) { s.Mode = ModeClosed }, []string{"connections"}, nil},
		{func(s *Settings) { s.Arrivals = PoissonArrivals }, []string{"seed"}, nil},
		{func(s *Settings) { s.Arrivals = ConstantArrivals }, []string{"seed"}, []string{"seed"}},
		{func(s *Settings) { s.Realtime = RealtimeOn }, nil, nil},
		{func(s *Settings) { s.Realtime, s.H2C = RealtimeOn, true }, nil, []string{"realtime"}},
		{func(s *Settings) { s.Realtime, s.Client = RealtimeOn, NetHTTPClient }, nil, []string{"realtime"}},
		{func(s *Settings) { s.Mode, s.HTTP2, s.NoKeepAlive = ModeSequential, true, true },
			[]string{"seed", "connections", "client", "streams"}, []string{"client", "no_keepalive", "connections", "seed"}},
	}
	for i, tt := range tests {
		s := Defaults()
		tt.set(&s)
		var got []string
		for _, p := range Problems(s.Conflicts(tt.given...)) {
			got = append(got, p.Option)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%d: problems of %v, want %v", i, got, tt.want)
		}
	}
	s := Defaults()
	s.Mode = ModeSequential
	p := Problems(s.Conflicts("connections", "seed"))
	if len(p) != 2 {
		t.Fatalf("problems %v, want connections and seed", p)
	}
	flag := func(r Ref) string { return "--" + r.Option + "=" + r.Value }
	for _, c := range []struct{ got, want string }{
		{p[0].Error(), "connections: mode: sequential uses one connection"},
		{p[1].Error(), "seed: seeds Poisson arrivals; give arrivals: poisson too"},
		{p[0].Text(flag), "--mode=sequential uses one connection"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// A message without refs is kept as it is, verbs and all.
	if e := (&OptionError{Option: "method", Msg: `"%s" is not an HTTP method`}); e.Text(flag) != e.Msg {
		t.Errorf("Text = %q, want the message as it is", e.Text(flag))
	}
}

// TestExcludes holds which options cannot stand beside each other, and
// which level options each mode takes.
func TestExcludes(t *testing.T) {
	for option, want := range map[string][]string{
		"rates":       {"concurrency", "ramp"},
		"concurrency": {"rates", "arrivals", "max_in_flight", "pool", "realtime"},
		"ramp":        {"rates", "arrivals", "max_in_flight", "pool", "realtime"},
		"arrivals":    nil,
		"body":        {"body_file", "targets", "scenario"},
		"body_file":   {"body", "targets", "scenario"},
		"method":      {"targets", "scenario"},
		"targets":     {"scenario", "path", "method", "headers", "body", "body_file"},
		"scenario":    {"targets", "path", "method", "headers", "body", "body_file"},
		"http2":       {"h2c"},
		"h2c":         {"http2"},
		"timeout":     nil,
	} {
		if diff := cmp.Diff(want, Excludes(option)); diff != "" {
			t.Errorf("Excludes(%s) (-want +got):\n%s", option, diff)
		}
	}
	for m, want := range map[Mode][]string{
		ModeOpen:       {"rates", "arrivals", "max_in_flight", "pool", "realtime"},
		ModeClosed:     {"concurrency"},
		ModeRamp:       {"concurrency", "ramp"},
		ModeSequential: nil,
	} {
		var got []string
		for _, o := range LevelOptions {
			if m.Takes(o) {
				got = append(got, o)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s takes (-want +got):\n%s", m, diff)
		}
	}
}
