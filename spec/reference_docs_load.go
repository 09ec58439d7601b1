package spec

// specDocsLoad documents the keys of the spec's load: the load itself
// (load.Settings), where it runs (LoadPod) and its shards (Shards).
var specDocsLoad = map[string]specDoc{
	"load": {
		doc:     "How each trial loads its variant: the load model and its levels, which the plan sweeps (rates in open mode, concurrency in closed and ramp modes), the requests, and how they are sent; latlab attack's options, in snake case. Every variant takes it, with its own changes (variants[].load).",
		def:     "required",
		example: "load: {mode: open, rates: [100, 200, 400], duration: 10s}",
	},
	"load.mode": {
		doc:     "The load model: open sends each level's rate whatever the target does; closed keeps each level's number of workers busy, each sending its next request when its last finished; ramp adds workers in bursts up to each level's concurrency; sequential sends one request at a time on one connection, at one level. open needs rates, closed concurrency, ramp concurrency and ramp; sequential takes neither rates nor concurrency.",
		def:     "open",
		example: "mode: closed",
	},
	"load.rates": {
		typ:     "list of rates (500, 500/s)",
		doc:     "The levels of open mode: requests (scenario iterations) per second, each above 0 and at most 1e9, none twice; a number, or a rate as -r takes it (500/s, 6000/m, 5/100ms). Open mode only.",
		def:     "required in open mode",
		example: "rates: [100, 500, 1000]",
	},
	"load.concurrency": {
		doc:     "The levels of closed and ramp modes: workers (in ramp mode, the workers to ramp up to), each from 1 to 1,000,000, none twice. Closed and ramp modes only.",
		def:     "required in closed and ramp modes",
		example: "concurrency: [10, 50, 100]",
	},
	"load.ramp": {
		doc:     "How ramp mode steps up: burst workers started at each every, up to the level's concurrency, which then holds. Both keys are required; ramp mode only.",
		def:     "required in ramp mode",
		example: "ramp: {burst: 300, every: 30s}",
	},
	"load.ramp.burst": {
		doc:     "The workers started at each step, from 1 to 1,000,000.",
		def:     "required",
		example: "burst: 300",
	},
	"load.ramp.every": {
		doc:     "The time between steps: positive, at most 24h.",
		def:     "required",
		example: "every: 30s",
	},
	"load.arrivals": {
		typ:     "one of constant, poisson",
		doc:     "How open mode spaces its requests: constant evenly; poisson with exponential gaps around the same mean, seeded by the trial's place in the plan. Open mode only.",
		def:     "constant",
		example: "arrivals: poisson",
	},
	"load.max_in_flight": {
		doc:     "Open mode's cap on requests in flight: at the cap requests wait, and the wait counts as lag. From 1 to 1,000,000; open mode only.",
		def:     "10000",
		example: "max_in_flight: 2000",
	},
	"load.pool": {
		doc:     "The connections open mode opens before the load and keeps; past them, more are opened as the target takes them up. From 1 to 1,000,000; open mode only.",
		def:     "sized from the rate: rate x 2 ms",
		example: "pool: 64",
	},
	"load.realtime": {
		doc:     "When open mode's event loops run as real-time threads (SCHED_FIFO): auto while the fair scheduler wakes a loop late (a busy machine) and it uses under a quarter of a CPU, where latlab may (root, CAP_SYS_NICE or an RLIMIT_RTPRIO of 1 or more); false never; true always, failing where that is not allowed. Open mode only; true is refused with http2, h2c, `client: nethttp` and `on: kubernetes` (a load pod has no capabilities). Shards and load pods never choose real-time for themselves: auto is false there.",
		def:     "auto",
		example: "realtime: false",
	},
	"load.threads": {
		doc:     "The event loops, each a thread, that the lean HTTP/1.1 client runs the load on. Left out, latlab chooses: in open mode one per 100,000 requests a second, at most one per CPU but one; in closed and ramp modes one per four CPUs for a target on this machine (which needs CPUs of its own to answer), else one per CPU but one; never more than the workers or the cap on connections. Runs say how many they used. From 1 to 1024; refused with http2, h2c, `client: nethttp` and sequential mode.",
		def:     "chosen",
		example: "threads: 2",
	},
	"load.duration": {
		doc:     "How long each trial's measured load lasts (the warm-up apart). With requests too, a trial stops at whichever comes first. Positive, at most 24h.",
		def:     "10s, unless requests is given",
		example: "duration: 30s",
	},
	"load.requests": {
		doc:     "Stops each trial after this many requests (scenario iterations), from 1 to 1e12; with duration too, at whichever comes first.",
		def:     "no limit",
		example: "requests: 100000",
	},
	"load.interval": {
		doc:     "The length of one interval of a run's series: the per-interval histograms and counts stored with each run. Positive, at most 24h.",
		def:     "1s",
		example: "interval: 500ms",
	},
	"load.path": {
		typ:     "string (path and query)",
		doc:     "The path and query of every request, in place of the target URL's (or the graph entry's). It starts with a single / and has no fragment. Not with targets or scenario, which give the requests.",
		def:     "the target's own; / for a graph",
		example: "path: /objects?limit=10",
	},
	"load.method": {
		doc:     "The requests' HTTP method. Not with targets or scenario.",
		def:     "GET",
		example: "method: POST",
	},
	"load.headers": {
		typ:     "mapping of header name to value",
		doc:     "Headers sent with every request, each name once whatever its case; Host sets the Host header. Not with targets or scenario.",
		def:     "none",
		example: "headers: {Content-Type: application/json}",
	},
	"load.body": {
		doc:     "The body of every request. Not with body_file, targets or scenario.",
		def:     "empty",
		example: "body: '{\"n\": 1}'",
	},
	"load.body_file": {
		typ:     "file path",
		doc:     "A file whose contents are the body of every request, read (and hashed with the spec) when the spec is read. Not with body, targets or scenario.",
		def:     "none",
		example: "body_file: bodies/object.json",
	},
	"load.targets": {
		typ:     "file path",
		doc:     "A targets file in vegeta's http format, whose requests are sent round robin, their URLs' scheme and host replaced by the variant's. Not with scenario, path, method, headers, body or body_file.",
		def:     "none",
		example: "targets: targets.txt",
	},
	"load.scenario": {
		typ:     "file path",
		doc:     "A scenario file: steps run in order per iteration, each timed on its own, their URLs' scheme and host replaced by the variant's; rates and requests count iterations. Not with targets, path, method, headers, body or body_file.",
		def:     "none",
		example: "scenario: crud.yaml",
	},
	"load.success": {
		typ:     "string (status codes)",
		doc:     "The status codes that count as success, as a comma-separated list of codes and ranges; a response with another counts against validity.max_error_ratio.",
		def:     "every code below 400",
		example: "success: 200-299,304",
	},
	"load.timeout": {
		doc:     "How long a request may take, from send to the last byte of its response, before it fails as a timeout. Positive, at most 24h.",
		def:     "30s",
		example: "timeout: 5s",
	},
	"load.connections": {
		doc:     "A cap on open connections, from 1 to 1,000,000: an HTTP/1.1 connection carries one request at a time, so fewer connections than requests in flight make requests wait, as lag. Not in sequential mode, which uses one.",
		def:     "none",
		example: "connections: 100",
	},
	"load.no_keepalive": {
		doc:     "Opens a new connection for every request instead of keeping them. Not with http2 or h2c, which keep their connections.",
		def:     "false",
		example: "no_keepalive: true",
	},
	"load.http2": {
		doc:     "Sends the requests over HTTP/2 over TLS (ALPN h2): the requests must be https. Not with h2c; streams sets the streams per connection.",
		def:     "false",
		example: "http2: true",
	},
	"load.h2c": {
		doc:     "Sends the requests over HTTP/2 over cleartext: the requests must be http. Not with http2; streams sets the streams per connection.",
		def:     "false",
		example: "h2c: true",
	},
	"load.streams": {
		doc:     "The concurrent streams per HTTP/2 connection, from 1 to 10,000: a request or gRPC call over them waits for one, in its latency but not its service time. Only with http2 or h2c, or gRPC targets; over gRPC the default, 100, caps nothing and leaves it to the server, as a gRPC client does.",
		def:     "100",
		example: "streams: 250",
	},
	"load.client": {
		typ:     "one of lean, nethttp",
		doc:     "The HTTP/1.1 client: lean, latlab's own (on event loops in open mode), or nethttp, Go's net/http, the reference. Not with http2 or h2c, which always go through Go's http2.",
		def:     "lean",
		example: "client: nethttp",
	},
	"load.insecure": {
		doc:     "Skips the verification of an https target's certificate.",
		def:     "false",
		example: "insecure: true",
	},
	"load.cacert": {
		typ:     "file path",
		doc:     "A PEM file of the roots an https target's certificate is verified against, instead of the system's. Read when a trial starts, and by the variant's ready check each time it looks, so a server that makes its own CA as it starts can write it.",
		def:     "the system's roots",
		example: "cacert: certs/ca.pem",
	},

	"load.proto": {
		typ:     "list of file paths",
		doc:     "The .proto files that give the types of a grpc:// or grpcs:// target's method, compiled when the spec is read (an error names the file, line and column) and sent, with every file they import, to a load pod. Left out, the types are asked of the server's reflection service before the load.",
		def:     "the server's reflection service",
		example: "proto: [protos/shop.proto]",
	},
	"load.import_paths": {
		typ:     "list of folder paths",
		doc:     "Where the proto files and their imports are found, as protoc's -I: a proto file under one of them is named from there. Left out, each file is found in its own folder.",
		def:     "each proto file's folder",
		example: "import_paths: [protos, third_party]",
	},
	"load.messages": {
		doc:     "How many messages a client-streaming or bidirectional-streaming gRPC call sends, each the body's message, before it closes its side and reads the replies to the end. A server-streaming or unary call sends one.",
		def:     "1",
		example: "messages: 10",
	},
	"load.message_interval": {
		doc:     "The time between the messages of a client-streaming or bidirectional-streaming gRPC call; part of the call's latency, as a client that paces its messages waits it.",
		def:     "0s",
		example: "message_interval: 10ms",
	},

	"load.on": {
		doc:     "Where each trial's load runs: kubernetes runs it in a pod of the cluster (a Job running latlab agent, reached through the API server), local here. image, namespace, node_selector, tolerations and resources need `on: kubernetes`, and so does a variant `on: kubernetes`, whose services answer inside the cluster only.",
		def:     "local",
		example: "on: kubernetes",
	},
	"load.image": {
		typ:     "string (container image)",
		doc:     "The container image of the load pods, whose entry point is latlab. With `on: kubernetes`, give it or kubernetes.image.",
		def:     "the spec's kubernetes.image",
		example: "image: ghcr.io/you/latlab:v1",
	},
	"load.namespace": {
		typ:     "string (a namespace's name)",
		doc:     "The namespace the load pods run in.",
		def:     "the spec's kubernetes.namespace",
		example: "namespace: load",
	},
	"load.node_selector": {
		typ:     "mapping of label to value",
		doc:     "Labels a node must have to run a load pod, as a pod's nodeSelector: at least one, each checked as the API server checks labels.",
		def:     "none",
		example: "node_selector: {pool: load}",
	},
	"load.tolerations": {
		doc:     "Taints of the nodes a load pod may run on all the same, as a pod's tolerations; each gives at least one of key, operator, value and effect.",
		def:     "none",
		example: "tolerations: [{key: dedicated, value: load, effect: NoSchedule}]",
	},
	"load.tolerations[].key": {
		doc:     "The key of the taints tolerated. A toleration without one matches every taint, which needs `operator: Exists`.",
		def:     "none: every taint",
		example: "key: dedicated",
	},
	"load.tolerations[].operator": {
		typ:     "one of Equal, Exists",
		doc:     "Equal matches a taint of the key and value; Exists matches the key with any value, and takes no value.",
		def:     "Equal",
		example: "operator: Exists",
	},
	"load.tolerations[].value": {
		doc:     "The value of the taints tolerated, with operator Equal.",
		def:     "empty",
		example: "value: load",
	},
	"load.tolerations[].effect": {
		typ:     "one of NoSchedule, PreferNoSchedule, NoExecute",
		doc:     "The effect of the taints tolerated.",
		def:     "every effect",
		example: "effect: NoSchedule",
	},
	"load.tolerations[].toleration_seconds": {
		doc:     "How long the pod stays on a node once it is tainted NoExecute, from 0 to 2^40 seconds; it needs `effect: NoExecute`.",
		def:     "for ever",
		example: "toleration_seconds: 300",
	},
	"load.resources": {
		doc:     "The CPU and memory of a load pod's container: what it requests of its node and what it is limited to, at least one of the two, each request no more than its limit.",
		def:     "the namespace's defaults",
		example: "resources: {requests: {cpu: 500m}, limits: {memory: 1Gi}}",
	},
	"load.resources.requests": {
		doc:     "The CPU and memory the container requests of its node: cpu, memory or both.",
		def:     "none",
		example: "requests: {cpu: 500m, memory: 256Mi}",
	},
	"load.resources.requests.cpu": {
		typ:     "string (Kubernetes quantity)",
		doc:     "The CPU requested, a positive quantity such as 500m or 2.",
		def:     "none",
		example: "cpu: 500m",
	},
	"load.resources.requests.memory": {
		typ:     "string (Kubernetes quantity)",
		doc:     "The memory requested, a positive quantity such as 256Mi.",
		def:     "none",
		example: "memory: 256Mi",
	},
	"load.resources.limits": {
		doc:     "The CPU and memory the container is limited to: cpu, memory or both.",
		def:     "none",
		example: "limits: {cpu: \"2\", memory: 1Gi}",
	},
	"load.resources.limits.cpu": {
		typ:     "string (Kubernetes quantity)",
		doc:     "The CPU limit, a positive quantity such as 500m or 2.",
		def:     "none",
		example: "cpu: \"2\"",
	},
	"load.resources.limits.memory": {
		typ:     "string (Kubernetes quantity)",
		doc:     "The memory limit, a positive quantity such as 1Gi.",
		def:     "none",
		example: "memory: 1Gi",
	},

	"load.shards": {
		doc:     "Sends each trial's load from this many generators at once, from 1 to 1000, each its share (request i of the schedule to shard i mod N; workers and requests dealt evenly), their results merged exactly. The shards are latlab agent processes here, each on its share of cpus.load, or with `on: kubernetes` the pods of an Indexed Job. Not in sequential mode; in closed and ramp modes each concurrency must be at least shards.",
		def:     "none: one generator",
		example: "shards: 4",
	},
	"load.clock_skew": {
		doc:     "Flags a run clock_skew when a shard's clock may be off from latlab's by more than this. Positive, at most 24h; it needs shards.",
		def:     "1ms",
		example: "clock_skew: 2ms",
	},
}
