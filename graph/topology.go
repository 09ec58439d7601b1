package graph

import (
	"time"

	"google.golang.org/grpc/codes"
)

// A Topology is a parsed topology file: the services of a graph.
type Topology struct {
	File     string     // the file it was read from, for messages
	Dir      string     // its folder: relative paths in it resolve here
	Services []*Service // in file order
}

// Service returns the service called name, or nil.
func (t *Topology) Service(name string) *Service {
	for _, s := range t.Services {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Entry returns the service requests enter by: the one marked entry, else
// the first.
func (t *Topology) Entry() *Service {
	for _, s := range t.Services {
		if s.Entry {
			return s
		}
	}
	if len(t.Services) > 0 {
		return t.Services[0]
	}
	return nil
}

// A Service is one node of the graph.
type Service struct {
	Name      string
	Line      int      // where it is defined in the file
	Entry     bool     // requests enter the graph here
	Proxy     string   // when set, a pure reverse proxy to this service: any route, method, body
	Protocol  Protocol // what it serves and is called with; "" is HTTP
	Port      int      // 0: any free port
	Filters   []Filter
	Commands  map[string][]string // fork steps may run these, by name
	Jobs      map[string]string   // stress-ng job files by name, absolute paths
	LoadJob   string              // the job /load runs; a key of Jobs
	Script    []Step              // what / does; empty means call each of Calls in order
	Calls     []string            // services called in order when there is no script
	PrimeMax  int64               // default max of /prime; 0 means the node's default
	Errors    *Errors             // injected failures
	Resources *Resources          // for Kubernetes manifests
}

// Errors makes a service fail a share of its requests.
type Errors struct {
	Rate   float64    // 0 to 1
	Status int        // status code of a failed HTTP request
	Code   codes.Code // status of a failed gRPC call; OK means INTERNAL
}

// A Protocol is what a service serves and is called with.
type Protocol string

// The protocols of a service.
const (
	HTTP Protocol = ""     // HTTP/1.1, or HTTPS
	GRPC Protocol = "grpc" // gRPC over HTTP/2, cleartext or TLS
)

// Resources are a service's requests and limits in Kubernetes quantities.
type Resources struct {
	CPU    string // such as "1" or "500m"
	Memory string // such as "256Mi"
}

// FilterKind names a filter.
type FilterKind string

// The filters a service can put in front of its handler.
const (
	Passthrough FilterKind = "passthrough"
	Delay       FilterKind = "delay"
	FairQueue   FilterKind = "fairqueue"
)

// A Filter is one entry of a service's filter chain, outermost first.
type Filter struct {
	Kind      FilterKind
	Name      string // the name its latency is tracked under: the kind, or kind-2, kind-3 for repeats
	Line      int
	Delay     *DelaySpec     // when Kind is Delay
	FairQueue *FairQueueSpec // when Kind is FairQueue
}

// DelaySpec delays every request from one user.
type DelaySpec struct {
	User     string
	Header   string // where the user is read; "" means X-Remote-User
	Duration time.Duration
	Methods  []string // the methods delayed; none means all
}

// FairQueueSpec configures fair-queue admission.
type FairQueueSpec struct {
	Concurrency int // requests served at once, shared among levels
	Queues      int // queues per level
	HandSize    int // queues a flow is shuffle-sharded over
	QueueLength int // requests one queue holds before rejecting
	Header      string
	Levels      []Level
}

// A Level is a priority level of a FairQueueSpec.
type Level struct {
	Name   string
	Shares int      // share of the concurrency
	Users  []string // users sent to this level; the last level takes everyone else
}

// StepKind names a script step.
type StepKind string

// The script steps.
const (
	Busywork StepKind = "busywork" // spin the CPU for Duration
	Prime    StepKind = "prime"    // sieve primes up to N
	Sleep    StepKind = "sleep"    // sleep for Duration
	Fork     StepKind = "fork"     // run the command called Name
	Stress   StepKind = "stress"   // run the stress-ng job called Name
	Payload  StepKind = "payload"  // answer with N bytes of body
	Call     StepKind = "call"     // call service Name
	Parallel StepKind = "parallel" // run Steps concurrently
)

// A Step is one step of a script.
type Step struct {
	Kind     StepKind
	Line     int
	Duration time.Duration // busywork, sleep
	N        int64         // prime: the sieve's bound; payload: bytes; call: request body bytes
	Name     string        // fork: command; stress: job; call: service
	Path     string        // call: the route to call; "" means /
	Prob     float64       // call: probability the call is made; 1 when not given
	Steps    []Step        // parallel: run concurrently
}
