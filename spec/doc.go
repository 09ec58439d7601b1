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
// are required. The example shows common fields; docs/spec.md, generated
// from the spec's types (latlab spec --markdown), lists every field, with
// its default, among them the load pods of load: {on: kubernetes} and the
// shards of load: {shards: N}.
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
//	    load: {path: /busywork}           # overrides of any load field
//	baseline: plain                       # default: the first variant
//	load:
//	  mode: open                          # open | closed | ramp | sequential
//	  rates: [100, 200, 400]              # closed and ramp: concurrency: [...]
//	  duration: 10s                       # and/or requests: N
//	warmup: {duration: 5s, rate: same}    # default none
//	runs: 10                              # default 1; or auto, until the intervals are narrow
//	probes: {process: {cpu_budget: 75%}, traces: true}
//	validity: {max_error_ratio: 1%, max_lag_p99: 5ms}
//	slo: {p99: 50ms, errors: 1%}
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
