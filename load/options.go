package load

import (
	"net/http"
	"time"
)

// Settings are every option of a load, in one place: the model and its
// levels, the limits, the requests, the transport and what is kept raw.
// latlab attack's flags are registered on its fields, and an experiment
// spec's load: mapping is decoded into them; each only translates its own
// syntax. Defaults returns Settings with every default filled in, Validate
// names every option that is wrong and Conflicts every option the others
// make meaningless (both judge by them), and Model, Pacer, Transport and
// Config build what Attack takes.
//
// The spec tag of a field is its key in a spec's load: mapping ("-": the
// spec has no such key). Adding an option means a field here (with its
// default in Defaults and its rule in Validate), a flag, a spec key and a
// line of documentation.
type Settings struct {
	Mode        Mode          `spec:"mode"`          // "" is open
	Rates       []float64     `spec:"rates"`         // open: requests (scenario iterations) per second, one per level
	Concurrency []int         `spec:"concurrency"`   // closed and ramp: workers, one per level
	Ramp        *RampStep     `spec:"ramp"`          // ramp mode only
	Arrivals    string        `spec:"arrivals"`      // open: ConstantArrivals or PoissonArrivals; "" is constant
	MaxInFlight int           `spec:"max_in_flight"` // open: cap on requests in flight; 0 means DefaultMaxInFlight
	Pool        int           `spec:"pool"`          // open: connections opened before the load and kept; 0 sizes the pool from the rate
	Realtime    Realtime      `spec:"realtime"`      // open: when event loops run as real-time threads (Config.Realtime); "" is auto
	Threads     int           `spec:"threads"`       // event loops of the lean HTTP/1.1 client (Config.Threads); 0 chooses
	Duration    time.Duration `spec:"duration"`      // stop sending after this long; 0 means no limit (Requests is set)
	Requests    int64         `spec:"requests"`      // stop after this many requests (scenario iterations); 0 means no limit
	Interval    time.Duration `spec:"interval"`      // length of one interval of the series; 0 means 1 s

	Path     string            `spec:"path"` // path and query sent to a base URL; "" means the base's own
	Method   string            `spec:"method"`
	Headers  map[string]string `spec:"headers"` // canonical names; Host sets the Host header
	Body     string            `spec:"body"`
	BodyFile string            `spec:"body_file"` // as written
	Targets  string            `spec:"targets"`   // vegeta-format targets file, as written
	Scenario string            `spec:"scenario"`  // scenario file, as written
	Success  string            `spec:"success"`   // status codes that count as success, as record.ParseCodeSet reads them; "" means below 400

	Timeout     time.Duration `spec:"timeout"`     // per request, from send to the last byte; 0 means DefaultTimeout
	Connections int           `spec:"connections"` // cap on open connections; 0 means none
	NoKeepAlive bool          `spec:"no_keepalive"`
	HTTP2       bool          `spec:"http2"`
	H2C         bool          `spec:"h2c"`
	Streams     int           `spec:"streams"` // concurrent streams per HTTP/2 connection; 0 means DefaultStreams
	Client      string        `spec:"client"`  // HTTP/1.1 client: LeanClient or NetHTTPClient; "" is lean
	Insecure    bool          `spec:"insecure"`
	CACert      string        `spec:"cacert"`           // PEM file of roots to trust instead of the system's; read when the load starts
	Proto       []string      `spec:"proto"`            // .proto files of gRPC methods' types; none asks the servers' reflection
	ImportPaths []string      `spec:"import_paths"`     // where Proto's files and their imports are found; none: each file's folder
	Messages    int           `spec:"messages"`         // messages a client- or bidirectional-streaming gRPC call sends; 0 means 1
	MessageGap  time.Duration `spec:"message_interval"` // between a streaming call's messages

	Stages     []Stage       `spec:"-"` // open: from the first rate along these stages, instead of holding it
	Seed       uint64        `spec:"-"` // seed of Poisson arrivals
	Warmup     time.Duration `spec:"-"` // load this long first, never recorded
	UnixSocket string        `spec:"-"` // dial this socket instead of the URL's host
	Cert       string        `spec:"-"` // PEM client certificate, for mutual TLS
	Key        string        `spec:"-"` // PEM key of Cert
	Samples    int64         `spec:"-"` // measured requests kept raw (Result.Raw); 0 keeps none

	inputs *Inputs // what the files and codes parse to, shared by copies
}

// Mode names a load model as the options give it.
type Mode string

// The load modes.
const (
	ModeOpen       Mode = "open"       // a constant (or Poisson) rate per level, whatever the target does
	ModeClosed     Mode = "closed"     // a fixed number of workers per level
	ModeRamp       Mode = "ramp"       // workers added in bursts up to the level's concurrency
	ModeSequential Mode = "sequential" // one request at a time on one connection
)

// Modes lists the load modes.
var Modes = []Mode{ModeOpen, ModeClosed, ModeRamp, ModeSequential}

// RampStep is how ramp mode steps up: Burst workers every Every.
type RampStep struct {
	Burst int           `spec:"burst"`
	Every time.Duration `spec:"every"`
}

// The arrivals of an open loop.
const (
	ConstantArrivals = "constant" // evenly spaced
	PoissonArrivals  = "poisson"  // exponential gaps around the same mean
)

// The HTTP/1.1 clients.
const (
	LeanClient    = "lean"    // latlab's own
	NetHTTPClient = "nethttp" // Go's net/http, the reference
)

// Defaults of the options, declared once for the command line and specs.
const (
	DefaultMaxInFlight = 10000 // open loop: the cap on requests in flight when Open says nothing
	DefaultWorkers     = 50    // closed loop, when no concurrency is given
	DefaultDuration    = 10 * time.Second
	DefaultInterval    = time.Second
	DefaultTimeout     = 30 * time.Second
	DefaultStreams     = 100
	DefaultSeed        = 1
	// DefaultSamples is how many measured requests are kept raw unless
	// told otherwise: 40 MB of memory during the run (record.Raw).
	DefaultSamples = 1_000_000
)

// Upper bounds of the options (see Settings.Validate): past them a value
// is a slip of the keyboard rather than a load.
const (
	MaxCount    = 1_000_000      // workers, the in-flight cap, connections and a ramp's burst
	MaxStreams  = 10_000         // streams per HTTP/2 connection
	MaxThreads  = 1024           // event loops
	MaxRequests = 1e12           // requests
	MaxRate     = 1e9            // requests per second
	MaxDuration = 24 * time.Hour // duration, warm-up, interval, timeout and a ramp's period
)

// Defaults returns the options a load starts from: open mode, GET, and the
// default timeout, interval, streams and client. Duration is left 0:
// DefaultDuration applies only when nothing else ends the run (see Limit).
// Seed and Samples are left 0 too, since a spec sets them per trial and
// per run; the command line's flags start from DefaultSeed and
// DefaultSamples.
func Defaults() Settings {
	return Settings{Mode: ModeOpen, Method: http.MethodGet, Timeout: DefaultTimeout, Interval: DefaultInterval,
		Streams: DefaultStreams, Client: LeanClient, inputs: &Inputs{}}
}

// Limit sets Duration to DefaultDuration when nothing else ends the run:
// no duration, no request count and no stages.
func (s *Settings) Limit() {
	if s.Duration == 0 && s.Requests == 0 && len(s.Stages) == 0 {
		s.Duration = DefaultDuration
	}
}

// Inputs are what a Settings' files parse to, read once by whoever reads
// the files and shared by every copy of the Settings.
type Inputs struct {
	Body     []byte     // BodyFile's contents
	Targets  []*Request // Targets' requests; never sent themselves, only copied
	Scenario *Scenario
	// Proto holds the .proto files Proto's compile read, imports
	// included, by the path the compiler opened: a load built from a
	// spec compiles them again from here, never from disk.
	Proto map[string][]byte
}

// Inputs returns what s's files were read into, shared by the copies of
// s. Settings from Defaults share a new Inputs; others have none, and get
// an empty one that nothing keeps.
func (s *Settings) Inputs() *Inputs {
	if s.inputs == nil {
		return &Inputs{}
	}
	return s.inputs
}

// TLSFiles returns the TLS settings of s.
func (s *Settings) TLSFiles() TLSFiles {
	return TLSFiles{Insecure: s.Insecure, CACert: s.CACert, Cert: s.Cert, Key: s.Key}
}
