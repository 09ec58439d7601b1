// Package spec is latlab's experiment spec: its types, read strictly from
// YAML, its canonical form, hash and diff, the plan of trials it makes —
// variants × rates (or concurrencies) × repetitions, in a reproducible
// order — the time the plan takes, and the dry run that shows it. It
// runs nothing: package experiment runs a plan, package remote sends a
// trial elsewhere.
//
// A spec is YAML, read strictly: unknown fields, values of the wrong type
// and fields that do not fit together are errors, all reported at once,
// each as FILE:LINE: FIELD: message. Only version, name, variants and load
// are required. The example shows the common fields, with their defaults;
// docs/spec.md, generated from the spec's types (latlab spec --markdown),
// lists every field.
//
//	version: 1
//	name: filter-overhead
//	variants:
//	  - name: plain
//	    graph: graphs/chain.yaml          # a topology latlab starts and stops
//	  - name: filter
//	    graph: graphs/chain-filter.yaml
//	  - name: external
//	    target: http://127.0.0.1:9000/    # or a URL of something already running
//	    setup: ./start-proxy.sh           # shell commands run in the spec's folder
//	    configure: ./apply-config.sh      # ... once it is ready, before its load
//	    teardown: ./stop-proxy.sh
//	    ready: http://127.0.0.1:9000/healthz
//	    ready_timeout: 30s
//	    load: {path: /busywork}           # overrides of any load field
//	    expect: {p50: 30ms}               # shown beside the measured latency
//	  - name: on-cluster
//	    graph: graphs/chain.yaml
//	    on: kubernetes                    # deployed to the cluster, kept across its runs
//	  - name: mesh
//	    target: http://web.mesh.svc/      # as the load pod reaches it
//	    kubernetes: {manifests: deploy/, namespace: mesh}
//	baseline: plain                       # default: the first variant
//	load:
//	  mode: open                          # open | closed | ramp | sequential
//	  rates: [100, 200, 400]              # open: requests/s; closed and ramp: concurrency: [...]
//	  ramp: {burst: 300, every: 30s}      # ramp mode only
//	  duration: 10s                       # and/or requests: N; default 10s
//	  path: /                             # default: the target's own path, / for a graph
//	  method: GET
//	  headers: {Content-Type: application/json}
//	  body: ''                            # or body_file: FILE
//	  # targets: FILE or scenario: FILE instead of path, method, headers and
//	  # body; their URLs' scheme and host become the variant's
//	  # arrivals: constant | poisson, max_in_flight: N, pool: N, realtime:
//	  # false | auto | true (open mode; event loops as SCHED_FIFO threads:
//	  # false, the default, never; auto while light where allowed; true
//	  # always, and needs root or CAP_SYS_NICE)
//	  # interval: 1s, success: 200-299, timeout: 30s, insecure,
//	  # connections: N (not in sequential mode), http2 or h2c with
//	  # streams: 100, or HTTP/1.1 with no_keepalive and client: lean | nethttp
//	warmup: {duration: 5s, rate: same}    # default none; rate: same | 50% | 100 (requests/s)
//	runs: 10                              # default 1; raising it goes on with a stored experiment
//	# runs: auto, or {min: 6, max: 100, precision: 10%, relative: 50%,
//	# quantiles: [p50], budget: 1h}: min repetitions, then one at a
//	# time of each variant and level whose overheads' 95% intervals are
//	# wider than precision of the baseline's value (or a duration, 20us)
//	# and than relative of the overhead, up to max (see AutoRuns)
//	order: interleaved                    # or grouped
//	seed: 42                              # default: picked by latlab run and stored
//	restart: never                        # or per-run | per-rate
//	sideloads: [{target: http://127.0.0.1:9100/, rate: 50}]
//	probes:
//	  metrics: {interval: 5s, window: 1m, urls: [...]}
//	  prometheus: {url: http://127.0.0.1:9090, step: 5s, queries: {filter_p99: '...'}}
//	  process: {cpu_budget: 75%, pids: [...], names: [...]}
//	  pprof: {at: 50%, seconds: 5, url: ...}
//	  traces: true
//	validity: {max_error_ratio: 1%, max_lag_p99: 5ms, min_achieved: 99%, cpu_budget: 75%, max_trend: 10%}
//	slo: {p99: 50ms, errors: 1%}
//	kubernetes: {image: IMG, namespace: NS}  # the image graphs and load pods run; NS default the kubeconfig's
//	# load: {on: kubernetes, image: IMG, namespace: NS} runs each trial's
//	# load in a pod of the cluster (a Job running latlab agent), placed by
//	# node_selector: {LABEL: VALUE}, tolerations: [{key, operator, value,
//	# effect, toleration_seconds}] and resources: {requests: {cpu, memory},
//	# limits: {cpu, memory}}
//	# load: {shards: N, clock_skew: 1ms} sends each trial's load from N
//	# agent processes here that start together, each its share (request i
//	# of the schedule to shard i mod N), their results merged exactly
//	# (shard.Run); clock_skew flags a shard whose clock may be off by more
//
// Durations have units (10s, 1m30s). Percentages are written 75% or as a
// ratio, 0.75, and held as ratios. Relative paths — graphs, targets,
// scenarios, body files and commands whose first word holds a '/' —
// resolve against the spec's folder; each file must exist, and graphs,
// targets and scenarios must parse (their errors name their own file and
// line). A variant's load fields replace the spec's, and with them the
// spec's fields they exclude: concurrency drops rates, a scenario drops
// path, method, headers and body.
//
// A spec is code, as a Makefile is: what runs it runs its setup, start,
// configure and teardown commands with sh -c, and its graphs' nodes run
// their commands and stress-ng jobs, all with the privileges of whoever
// runs latlab. Spec.Commands lists every one, and WritePlan (latlab run
// --dry-run) prints them, running none.
//
// ExampleSpec_LoadFor reads a spec, plans it and attacks each trial's
// load; ExampleParseSpec_errors shows a spec's problems reported at once.
//
// Hash identifies a spec for resuming: comments, layout and key order do
// not change it, a value or a referenced file's content does; Diff and
// DiffCanonical say what changed. A spec that differs from the stored
// experiment's canonical form in its runs: field alone, planning as many
// repetitions or more, goes on with that experiment (a Raise): its plan
// drawn with more repetitions begins with the plan it had.
//
// DesignOf reads what a report needs of a stored spec, leniently: a
// spec is checked when it runs, and one stored long ago is still read.
//
// A parsed Spec is read-only: its methods are safe to call from several
// goroutines at once, and every load.Config that LoadFor, WarmupFor and
// Sideload.Config return is new, sharing only read-only data, so several
// may be attacked concurrently.
package spec
