// Package graph is latlab's synthetic system: a topology of services that do
// calibrated work (CPU busywork, a prime sieve, sleeps, forks, stress-ng
// jobs, payloads) and call each other in any DAG, behind a chain of
// measured filters.
//
// A topology is read from YAML (ReadTopology), each service runs as a node
// (NewNode, or "latlab serve"), a whole graph starts as local processes
// ("latlab graph up") or is written out as Kubernetes manifests.
//
// Every node measures its own work against what was asked and reports it in
// Prometheus histograms and a Server-Timing header, so a latency can be split
// into work, hops and queueing.
//
// A node refuses what it does not understand rather than do default work in
// its place: a query parameter its route does not take, one given twice, or
// a pair holding ";" (only "&" separates parameters) is 400 naming it. What
// a request may ask for is bounded by Caps, and a refusal names the cap: a
// query value over its cap is 400, a body over MaxBody 413 (at once when
// its Content-Length says so), an object beyond MaxObjects or MaxStored
// 507, a load job beyond MaxLoads 429, and an upload that finds none of
// MaxUploads free within MaxUploadWait 503 with Retry-After. An upload
// reserves its bytes against MaxStored before its body is read, so object
// bytes, stored or being received, never exceed MaxStored: a node's memory
// is bounded by its caps at any concurrency. /healthz, /metrics and
// /debug/pprof/ are the standard handlers and take what those take.
//
// Connections are bounded too: Serve keeps at most MaxConns open, closing
// any other as it comes, and closes one that waits too long for a request
// header or, while it reads a request body, for the body's next byte
// (BodyTimeout): a stall, not a long upload.
//
// A Topology is read-only once parsed and safe to share. A Node serves
// requests concurrently.
//
// # Topology files
//
// ReadTopology and ParseTopology read a topology file, YAML that lists the
// services:
//
//	services:
//	  - name: gateway          # a DNS label; in lowercase, a Kubernetes name
//	    entry: true            # requests enter here; default the first service
//	    proxy: root            # a pure reverse proxy to root
//	    protocol: http         # or grpc; default http
//	  - name: root
//	    port: 0                # for local runs; 0 is any free port
//	    filters:               # outermost first
//	      - fairqueue: {concurrency: 100, queues: 64, handsize: 6, queue_length: 50, header: X-Remote-User,
//	                    levels: [{name: workload, shares: 3, users: [alice]}, {name: global, shares: 1}]}
//	      - delay: {user: delay-adder, duration: 1s}   # header: default X-Remote-User
//	      - passthrough: {}
//	    commands: {date: [date]}          # argv lists that fork steps run
//	    jobs: {light: jobs/light.job}     # stress-ng job files
//	    load_job: light                   # the job /load runs
//	    prime_max: 100000                 # default bound of /prime
//	    script:
//	      - busywork: 2ms
//	      - call: branch
//	  - name: branch
//	    script:
//	      - [ {call: leafA}, {call: leafB, probability: 0.5} ]   # a list runs concurrently
//	  - name: leafA
//	    script: [ {sleep: 1ms}, {payload: 4KB} ]
//	  - name: leafB
//	    errors: {rate: 0.01, status: 503}     # status default 500
//	    resources: {cpu: "1", memory: 256Mi}  # Kubernetes requests and limits
//
// A step is one of busywork: DURATION, sleep: DURATION, prime: N,
// fork: COMMAND, stress: JOB, payload: SIZE or call: SERVICE, the last
// with optional path (default /), size (of the request body) and
// probability (default 1). A list in a script runs its steps
// concurrently. Durations are at most 1h; sizes are bytes, up to 1GiB, or
// a number with B, KB, MB, GB, KiB, MiB or GiB. Instead of a script, a
// service may list calls: the services it calls in order. A proxy has no
// script or calls, commands, jobs, load_job or prime_max. Calls, calls
// lists and proxies must not form a cycle. A fair-queue level other than
// the last needs users; the last takes everyone else.
//
// A service with protocol: grpc serves gRPC instead of HTTP: NodeProto,
// whose Run runs its script and RunStream runs it once per message, with
// health checking and reflection, on one port with its HTTP/1.1 observers
// (/healthz, /metrics, /debug/pprof/). Calls to it are calls of Run with a
// body of the call's size, and take no path; a gRPC proxy passes any call
// on undecoded, to a service of its own protocol; its filters run as
// interceptors (middleware.Interceptor); its injected errors are gRPC
// codes (errors: {rate: 0.01, code: UNAVAILABLE}).
//
// A service name starts with a letter, has letters, digits and '-', ends
// with a letter or digit and is at most 63 long; names must differ in
// lowercase, since Kubernetes objects are named in lowercase.
package graph
