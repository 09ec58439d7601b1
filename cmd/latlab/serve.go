package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/graph"
)

// serveFlags holds the flags of latlab serve.
type serveFlags struct {
	listen         string
	listenFD       int
	tlsDir         string
	admissionDelay time.Duration
	admissionUsers []string
	name           string
	downstreams    []string
	primeMax       int64
	jobFile        string
	loadFile       string
	otlp           string
	zipkin         string
	traceRatio     float64
	pprof          bool
	topology       string
	service        string
	peers          []string
	cpus           string
	bodyTimeout    time.Duration
	maxConns       int
}

// serveLong is latlab serve's help.
const serveLong = `serve runs one service of a synthetic graph: routes that do calibrated work
and then call every downstream with the same route, as testapi does.

Work routes: / (the service's script, or no work), /busywork?ms=N (CPU spin,
default 10), /prime?max=N (segmented sieve), /fork, /stress-ng (the job file,
re-read on every request), /sleep?ms=N, /load (starts the load job across the
chain, returns at once), /load-status (blocks until that load has ended across
the chain). Local routes: /objects/NAME (in-memory create, get, update,
delete), /healthz, /metrics, and /debug/pprof with --pprof.

A query parameter a route does not take, or a pair joined by ";", is 400
naming it. Caps bound a node whatever the concurrency, each named when it
refuses: a body over 64 MiB is 413, objects beyond 100,000 or 1 GiB in all
507 (an upload reserves its size before its body is read), and at most 8
uploads are read at once: another waits up to 10 s, then gets 503 with
Retry-After.

A connection is closed when its first request header has not come within
10 s, when 2 min 10 s pass after an answer without the next request, and when
it waits longer than --body-timeout (30 s) for the next byte of a request body
the node is reading: a stall, not a long upload, which takes the time it
needs. At most --max-conns connections are open at once; another is closed
as it is accepted and counted in latlab_server_connections_refused_total.

Every work route answers with a Server-Timing header (work, downstream, total)
and is measured in Prometheus histograms (latlab_*_seconds).

A node is configured by flags, by --topology FILE --service NAME, or by
testapi's environment variables when neither is given: SERVICE_NAME,
UPSTREAM_URI (where to listen), DOWNSTREAM_URI (comma-separated), REPORTER_URI
(a Zipkin collector), PRIME_MAX, JOBFILE, LOADFILE. Flags win over them.`

// serveExample are latlab serve's examples.
const serveExample = `  # a three-node chain by hand, as testapi runs it
  latlab serve --name leaf   --listen 127.0.0.1:9003 &
  latlab serve --name branch --listen 127.0.0.1:9002 --downstream http://127.0.0.1:9003 &
  latlab serve --name root   --listen 127.0.0.1:9001 --downstream http://127.0.0.1:9002 &
  curl 'http://127.0.0.1:9001/busywork?ms=10'

  # the same from testapi's environment variables
  SERVICE_NAME=root UPSTREAM_URI=http://127.0.0.1:9001 DOWNSTREAM_URI=http://127.0.0.1:9002 latlab serve

  # one service of a topology file (latlab graph up starts them all)
  latlab serve --topology graph.yaml --service root --listen 127.0.0.1:9001`

func newServe(stdout, stderr io.Writer) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Run one node of a synthetic service graph",
		Long:    serveLong,
		Example: serveExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("serve takes no arguments, got %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd.Context(), cmd, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.listen, "listen", "", "address to listen on (default 127.0.0.1:8080)")
	fl.StringVar(&f.name, "name", "", "service name in metrics and traces (default: --service, or latlab)")
	fl.StringArrayVar(&f.downstreams, "downstream", nil, "base URL every work route is forwarded to (repeatable)")
	fl.Int64Var(&f.primeMax, "prime-max", 0, "default bound of /prime (default 1000000)")
	fl.StringVar(&f.jobFile, "job-file", "", "stress-ng job file /stress-ng runs")
	fl.StringVar(&f.loadFile, "load-file", "", "stress-ng job file /load runs")
	fl.StringVar(&f.otlp, "otlp-endpoint", "", "export traces over OTLP/HTTP to this URL, such as http://127.0.0.1:4318")
	fl.StringVar(&f.zipkin, "zipkin-endpoint", "", "export traces to this Zipkin collector, such as http://127.0.0.1:9411/api/v2/spans")
	fl.Float64Var(&f.traceRatio, "trace-ratio", 1, "share of traces sampled, 0 to 1")
	fl.BoolVar(&f.pprof, "pprof", false, "serve /debug/pprof")
	fl.StringVar(&f.topology, "topology", "", "topology file the service is defined in")
	fl.StringVar(&f.service, "service", "", "the service of --topology to run")
	fl.StringArrayVar(&f.peers, "peer", nil, "URL of another service of the topology, NAME=URL (repeatable; default http://NAME:<listen port>)")
	fl.StringVar(&f.cpus, "cpus", "", "pin the node to these CPUs, such as 2-3")
	fl.StringVar(&f.tlsDir, "tls-dir", "", "serve HTTPS with the certificate in this folder, made there with a CA of its own (ca.crt) when it has none")
	fl.DurationVar(&f.admissionDelay, "admission-delay", 0, "serve POST /admission, a validating admission webhook that admits all, after this delay for --admission-user")
	fl.StringArrayVar(&f.admissionUsers, "admission-user", nil, "a user --admission-delay delays, as the API server names it (repeatable)")
	fl.DurationVar(&f.bodyTimeout, "body-timeout", 30*time.Second, "close a connection that waits this long for the next byte of a request body")
	fl.IntVar(&f.maxConns, "max-conns", 0, "most connections open at once; more are closed as they come (default 10000, or 3/4 of the open-file limit when lower)")
	fl.IntVar(&f.listenFD, "listen-fd", 0, "serve on this inherited listening socket")
	_ = fl.MarkHidden("listen-fd")
	_ = cmd.MarkFlagFilename("topology", "yaml", "yml")
	_ = cmd.MarkFlagFilename("job-file")
	_ = cmd.MarkFlagFilename("load-file")
	return cmd
}

func (f *serveFlags) run(ctx context.Context, cmd *cobra.Command, stdout, stderr io.Writer) error {
	cfg, err := f.config(cmd)
	if err != nil {
		return err
	}
	if err := pinCPUs(f.cpus); err != nil {
		return err
	}
	var ln net.Listener
	if f.listenFD > 0 {
		file := os.NewFile(uintptr(f.listenFD), "listener")
		if ln, err = net.FileListener(file); err != nil {
			return usagef("--listen-fd %d: %v", f.listenFD, err)
		}
		file.Close()
	} else if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
		return usagef("--listen %s: %v", cfg.Listen, err)
	}
	scheme := "http"
	if f.tlsDir != "" {
		host, _, _ := net.SplitHostPort(cfg.Listen)
		hosts := []string{host}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			hosts = []string{"127.0.0.1", "localhost"}
		}
		tc, err := graph.TLSDir(f.tlsDir, hosts)
		if err != nil {
			ln.Close()
			return usagef("--tls-dir: %v", err)
		}
		cfg.TLS, scheme = tc, "https"
	}
	node, err := graph.NewNode(cfg)
	if err != nil {
		ln.Close()
		return usageError{err}
	}
	defer node.Close()
	fmt.Fprintf(stderr, "latlab serve: %s listening on %s://%s\n", cfg.Name, scheme, ln.Addr())
	return node.Serve(ctx, ln)
}

// config builds the node's configuration from testapi's environment, then
// the topology, then the flags.
func (f *serveFlags) config(cmd *cobra.Command) (graph.NodeConfig, error) {
	set := cmd.Flags().Changed
	cfg := graph.NodeConfig{TraceRatio: f.traceRatio, Pprof: f.pprof, Peers: map[string]string{}}
	if f.topology == "" && f.service == "" {
		if err := cfg.FromEnv(os.Getenv); err != nil {
			return cfg, usageError{err}
		}
	}
	if (f.topology == "") != (f.service == "") {
		return cfg, usagef("give --topology and --service together")
	}
	if f.topology != "" {
		t, err := graph.ReadTopology(f.topology)
		if err != nil {
			return cfg, usageError{err}
		}
		s := t.Service(f.service)
		if s == nil {
			return cfg, usagef("--service %q: %s defines no such service", f.service, f.topology)
		}
		cfg.Topology, cfg.Service, cfg.Name = t, s, s.Name
	}
	if set("name") || cfg.Name == "" {
		cfg.Name = f.name
	}
	if cfg.Name == "" {
		cfg.Name = "latlab"
	}
	if set("listen") || cfg.Listen == "" {
		cfg.Listen = f.listen
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:8080"
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		return cfg, usagef("--listen %q: want HOST:PORT", cfg.Listen)
	}
	if err := f.calls(&cfg, set); err != nil {
		return cfg, err
	}
	if err := f.files(&cfg, set); err != nil {
		return cfg, err
	}
	if err := f.limits(&cfg, set); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// calls sets whom the node calls: --downstream over the environment's,
// and each --peer.
func (f *serveFlags) calls(cfg *graph.NodeConfig, set func(string) bool) error {
	if set("downstream") {
		cfg.Downstreams = nil
		for _, d := range f.downstreams {
			if err := graph.CheckBaseURL(d); err != nil {
				return usagef("--downstream: %v", err)
			}
			cfg.Downstreams = append(cfg.Downstreams, d)
		}
	}
	for _, p := range f.peers {
		name, u, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return usagef("--peer %q: want NAME=URL", p)
		}
		if err := graph.CheckBaseURL(u); err != nil {
			return usagef("--peer %s: %v", name, err)
		}
		cfg.Peers[name] = u
	}
	return nil
}

// files sets the prime work's bound, the job and load files and the span
// exporters given as flags over the environment's, and checks that the
// files are there.
func (f *serveFlags) files(cfg *graph.NodeConfig, set func(string) bool) error {
	if set("prime-max") {
		if f.primeMax < 2 {
			return usagef("--prime-max: want at least 2, got %d", f.primeMax)
		}
		cfg.PrimeMax = f.primeMax
	}
	for _, s := range []struct {
		flag string
		dst  *string
		val  string
	}{{"job-file", &cfg.JobFile, f.jobFile}, {"load-file", &cfg.LoadFile, f.loadFile},
		{"otlp-endpoint", &cfg.OTLPEndpoint, f.otlp}, {"zipkin-endpoint", &cfg.ZipkinEndpoint, f.zipkin}} {
		if set(s.flag) {
			*s.dst = s.val
		}
	}
	for _, j := range []string{cfg.JobFile, cfg.LoadFile} {
		if j == "" {
			continue
		}
		if _, err := os.Stat(j); err != nil {
			return usagef("job file: %v", err)
		}
	}
	return nil
}

// limits sets the node's body timeout, connection cap, trace ratio and
// admission delay.
func (f *serveFlags) limits(cfg *graph.NodeConfig, set func(string) bool) error {
	if f.bodyTimeout <= 0 {
		return usagef("--body-timeout: want a duration over 0, got %s", f.bodyTimeout)
	}
	cfg.BodyTimeout = f.bodyTimeout
	if f.maxConns < 0 {
		return usagef("--max-conns: want 0 (the default) or more, got %d", f.maxConns)
	}
	cfg.MaxConns = f.maxConns
	if f.traceRatio < 0 || f.traceRatio > 1 {
		return usagef("--trace-ratio: want 0 to 1, got %g", f.traceRatio)
	}
	switch {
	case f.admissionDelay < 0:
		return usagef("--admission-delay: want a duration of 0 or more, got %s", f.admissionDelay)
	case len(f.admissionUsers) > 0 && f.admissionDelay == 0:
		return usagef("--admission-user needs --admission-delay")
	case set("admission-delay"):
		for _, u := range f.admissionUsers {
			if u == "" {
				return usagef("--admission-user: empty")
			}
		}
		cfg.Admission = &graph.Admission{Delay: f.admissionDelay, Users: f.admissionUsers}
	}
	return nil
}
