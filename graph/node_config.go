package graph

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
)

// NodeConfig configures a Node. Only Name is required (or a Service to take
// it from); the zero value of every other field has the meaning given.
type NodeConfig struct {
	// Name is the service name in metrics, traces and response bodies.
	// "" means Service.Name.
	Name string

	// Listen is the address the node is meant to listen on; "" means
	// 127.0.0.1:8080, or port Service.Port when that is set. Serve takes
	// its listener from the caller; Listen gives the default peer port.
	Listen string

	// Downstreams are base URLs (http://host:port) every work route is
	// forwarded to after its work, in order, as in testapi's DOWNSTREAM_URI.
	// Empty means the services a topology Service calls.
	Downstreams []string

	// Topology is the graph the node is part of; nil for a testapi-style
	// node configured by flags only.
	Topology *Topology

	// Service is this node's service in Topology. nil means the service of
	// Topology called Name, if any.
	Service *Service

	// Peers maps a service name to its base URL for call steps, proxying
	// and forwarding. A peer not listed is http://NAME:PORT with PORT the
	// port of Listen, as in a Kubernetes namespace.
	Peers map[string]string

	// PrimeMax is the default ?max= of /prime (testapi's PRIME_MAX); 0 means
	// Service.PrimeMax, else 1,000,000.
	PrimeMax int64

	// JobFile is the stress-ng job file /stress-ng runs (testapi's JOBFILE);
	// it is read anew by every run, so edits apply without a restart.
	JobFile string

	// LoadFile is the stress-ng job file /load runs (testapi's LOADFILE);
	// "" means the Service's LoadJob.
	LoadFile string

	// OTLPEndpoint is an OTLP/HTTP collector base URL such as
	// http://127.0.0.1:4318 (/v1/traces is appended when it has no path);
	// ZipkinEndpoint a Zipkin collector URL such as
	// http://127.0.0.1:9411/api/v2/spans. Both empty: tracing is off.
	OTLPEndpoint   string
	ZipkinEndpoint string

	// TraceRatio is the share of new traces sampled; requests arriving with
	// a sampled parent are always sampled. 0 means 1.
	TraceRatio float64

	// Pprof serves /debug/pprof/.
	Pprof bool

	// CallTimeout bounds one downstream call, except /load-status which
	// waits as long as its caller does; 0 means 2 minutes.
	CallTimeout time.Duration

	// ShutdownGrace bounds how long Serve waits for in-flight requests when
	// its context ends; 0 means 30 seconds.
	ShutdownGrace time.Duration

	// BodyTimeout is how long Serve lets a connection wait for the next
	// byte of a request body it is reading before closing it; 0 means 30
	// seconds. It bounds a stall, not a body: an upload that keeps coming
	// takes as long as it needs, and a handler busy while the body waits
	// unread is not waiting for it.
	BodyTimeout time.Duration

	// MaxConns caps the connections Serve keeps open: one beyond it is
	// closed as it is accepted, and counted in
	// latlab_server_connections_refused_total. 0 means 10,000, or three
	// quarters of the process's limit on open files when that is lower.
	MaxConns int

	// TLS, when set, makes Serve serve HTTPS with it. Serve's listener is
	// then the plain one beneath, so that the node counts each
	// connection's bytes as the client sends them.
	TLS *tls.Config

	// Caps bound what a request may ask for.
	Caps Caps

	// Admission, when set, serves POST /admission as a validating
	// admission webhook (see Admission).
	Admission *Admission
}

const (
	defaultListen   = "127.0.0.1:8080"
	defaultPrimeMax = 1_000_000
)

// resolve checks cfg and fills in its defaults.
func (cfg NodeConfig) resolve() (NodeConfig, error) {
	if cfg.Service == nil && cfg.Topology != nil {
		cfg.Service = cfg.Topology.Service(cfg.Name)
		if cfg.Service == nil && cfg.Name != "" {
			return cfg, fmt.Errorf("node %s: no such service in %s", cfg.Name, cfg.Topology.File)
		}
	}
	if cfg.Name == "" && cfg.Service != nil {
		cfg.Name = cfg.Service.Name
	}
	if cfg.Name == "" {
		return cfg, fmt.Errorf("node config: Name is empty")
	}
	if cfg.Listen == "" {
		cfg.Listen = defaultListen
		if cfg.Service != nil && cfg.Service.Port != 0 {
			cfg.Listen = fmt.Sprintf("127.0.0.1:%d", cfg.Service.Port)
		}
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		return cfg, fmt.Errorf("node %s: Listen %q: %w", cfg.Name, cfg.Listen, err)
	}
	for _, d := range cfg.Downstreams {
		if err := checkBaseURL(d); err != nil {
			return cfg, fmt.Errorf("node %s: downstream %q: %w", cfg.Name, d, err)
		}
	}
	for name, u := range cfg.Peers {
		if err := checkBaseURL(u); err != nil {
			return cfg, fmt.Errorf("node %s: peer %s %q: %w", cfg.Name, name, u, err)
		}
	}
	for _, e := range []string{cfg.OTLPEndpoint, cfg.ZipkinEndpoint} {
		if e != "" {
			if err := checkBaseURL(e); err != nil {
				return cfg, fmt.Errorf("node %s: trace endpoint %q: %w", cfg.Name, e, err)
			}
		}
	}
	if cfg.PrimeMax == 0 && cfg.Service != nil {
		cfg.PrimeMax = cfg.Service.PrimeMax
	}
	setDefault(&cfg.PrimeMax, defaultPrimeMax)
	if cfg.PrimeMax < 0 {
		return cfg, fmt.Errorf("node %s: PrimeMax %d is negative", cfg.Name, cfg.PrimeMax)
	}
	if cfg.TraceRatio < 0 || cfg.TraceRatio > 1 {
		return cfg, fmt.Errorf("node %s: TraceRatio %v is not within [0, 1]", cfg.Name, cfg.TraceRatio)
	}
	setDefault(&cfg.TraceRatio, 1)
	setDefault(&cfg.CallTimeout, 2*time.Minute)
	setDefault(&cfg.ShutdownGrace, 30*time.Second)
	if cfg.BodyTimeout < 0 {
		return cfg, fmt.Errorf("node %s: BodyTimeout %v is negative", cfg.Name, cfg.BodyTimeout)
	}
	setDefault(&cfg.BodyTimeout, 30*time.Second)
	if cfg.MaxConns < 0 {
		return cfg, fmt.Errorf("node %s: MaxConns %d is negative", cfg.Name, cfg.MaxConns)
	}
	setDefault(&cfg.MaxConns, defaultMaxConns())
	if cfg.LoadFile == "" && cfg.Service != nil && cfg.Service.LoadJob != "" {
		cfg.LoadFile = cfg.Service.Jobs[cfg.Service.LoadJob]
		if cfg.LoadFile == "" {
			return cfg, fmt.Errorf("node %s: load job %q is not among its jobs", cfg.Name, cfg.Service.LoadJob)
		}
	}
	caps, err := cfg.Caps.withDefaults()
	if err != nil {
		return cfg, fmt.Errorf("node %s: %w", cfg.Name, err)
	}
	cfg.Caps = caps
	return cfg, nil
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("no host")
	}
	return nil
}

// peerURL returns the base URL of service name.
func (cfg *NodeConfig) peerURL(name string) string {
	if u, ok := cfg.Peers[name]; ok {
		return strings.TrimSuffix(u, "/")
	}
	_, port, _ := net.SplitHostPort(cfg.Listen)
	return "http://" + net.JoinHostPort(name, port)
}

// A target is somewhere a node sends requests: a peer service or a
// configured downstream URL.
type target struct {
	name string // the peer label of client metrics and spans
	base string // base URL without a trailing slash
}

// forwardTargets returns where work routes are forwarded after their work:
// the Downstreams, else the services the Service calls (call steps of its
// script in order of first appearance, or its Calls).
func (cfg *NodeConfig) forwardTargets() []target {
	var ts []target
	if len(cfg.Downstreams) > 0 {
		for _, d := range cfg.Downstreams {
			ts = append(ts, target{name: d, base: strings.TrimSuffix(d, "/")})
		}
		return ts
	}
	if cfg.Service == nil {
		return nil
	}
	var names []string
	if len(cfg.Service.Script) > 0 {
		names = calledServices(cfg.Service.Script, names)
	} else {
		for _, c := range cfg.Service.Calls {
			if !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
	}
	for _, name := range names {
		ts = append(ts, target{name: name, base: cfg.peerURL(name)})
	}
	return ts
}

// calledServices appends to names the services called by steps, in order,
// each once.
func calledServices(steps []Step, names []string) []string {
	for _, s := range steps {
		switch s.Kind {
		case Call:
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		case Parallel:
			names = calledServices(s.Steps, names)
		}
	}
	return names
}
