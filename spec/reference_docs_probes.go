package spec

// specDocsProbes documents the keys of probes and validity.
var specDocsProbes = map[string]specDoc{
	"probes": {
		doc:     "The side measurements taken during each trial's measured load. Each probe is off unless given, and one given without keys (`metrics:`) is on with its defaults. Every run also measures the machine (load average, other processes' CPU time, steal) as probe machine.",
		def:     "none",
		example: "probes: {process: {cpu_budget: 75%}, traces: true}",
	},
	"probes.metrics": {
		doc:     "Scrapes Prometheus text endpoints every interval and computes quantiles over window from their histograms. A graph's nodes are scraped without being listed, and on a cluster every pod of a variant annotated `prometheus.io/scrape: \"true\"`.",
		def:     "off",
		example: "metrics: {interval: 1s, window: 10s}",
	},
	"probes.metrics.interval": {
		doc:     "The time between scrapes: positive, at most 24h.",
		def:     "5s",
		example: "interval: 1s",
	},
	"probes.metrics.window": {
		doc:     "The span the windowed quantiles are computed over; not shorter than interval, at most 24h.",
		def:     "1m",
		example: "window: 10s",
	},
	"probes.metrics.urls": {
		typ:     "list of URLs",
		doc:     "More endpoints to scrape, besides a graph's nodes: absolute http or https URLs, at least one when given.",
		def:     "none",
		example: "urls: [http://127.0.0.1:9113/metrics]",
	},
	"probes.metrics.token_file": {
		typ:     "file path",
		doc:     "A file holding a bearer token sent with the scrapes of urls (never to a graph's nodes), as an API server's /metrics asks. Read when the probe starts, so a variant's start may write it.",
		def:     "none",
		example: "token_file: apiserver.token",
	},
	"probes.metrics.cacert": {
		typ:     "file path",
		doc:     "A PEM file of the roots the certificates of https urls are verified against (never a graph's nodes'). Read when the probe starts, so a variant's start may write it.",
		def:     "the system's roots",
		example: "cacert: certs/ca.pem",
	},
	"probes.metrics.families": {
		typ:     "list of strings (metric family names)",
		doc:     "Limits the scrapes of urls to these metric families, each a name alone (every label set of it is read), and reads the gauges among them as values too.",
		def:     "every family",
		example: "families: [apiserver_request_duration_seconds]",
	},
	"probes.prometheus": {
		doc:     "Runs PromQL range queries against a Prometheus server over each trial's window, each stored under its name. url and queries are required.",
		def:     "off",
		example: "prometheus: {url: http://prom:9090, queries: {rps: 'sum(rate(reqs_total[1m]))'}}",
	},
	"probes.prometheus.url": {
		typ:     "URL",
		doc:     "The Prometheus server's base URL, absolute http or https.",
		def:     "required",
		example: "url: http://127.0.0.1:9090",
	},
	"probes.prometheus.step": {
		doc:     "The resolution step of the range queries: positive, at most 24h.",
		def:     "5s",
		example: "step: 1s",
	},
	"probes.prometheus.queries": {
		typ:     "mapping of name to PromQL",
		doc:     "The queries by name, at least one; a name is up to 63 letters, digits and underscores, not starting with a digit.",
		def:     "required",
		example: "queries: {rps: 'sum(rate(reqs_total[30s]))'}",
	},
	"probes.process": {
		doc:     "Samples the CPU and RSS of target processes every second, each with every process under it: a graph's nodes without being listed (whether or not this probe is given), and the processes of pids and names, as a target latlab did not start needs. validity.cpu_budget judges their CPU (target_cpu_high).",
		def:     "off (a graph's nodes are sampled all the same)",
		example: "process: {names: [nginx]}",
	},
	"probes.process.cpu_budget": {
		doc:     "The same setting as validity.cpu_budget: either sets both, and given in both places they must agree. Above 0, at most 100%.",
		def:     "75%",
		example: "cpu_budget: 50%",
	},
	"probes.process.pids": {
		doc:     "PIDs of target processes, from 1 to 4194304.",
		def:     "none",
		example: "pids: [4242]",
	},
	"probes.process.names": {
		doc:     "Names of target processes: each matches a process's /proc/PID/comm or the program its command line starts with; every match counts, found again each trial.",
		def:     "none",
		example: "names: [nginx, haproxy]",
	},
	"probes.pprof": {
		doc:     "Captures a CPU profile and a heap profile of the variant from its /debug/pprof during each trial, stored with the run; a graph's nodes are started with profiling on.",
		def:     "off",
		example: "pprof: {at: 50%, seconds: 5}",
	},
	"probes.pprof.at": {
		doc:     "When the capture starts, as a share of the trial's duration: above 0, below 100%.",
		def:     "50%",
		example: "at: 25%",
	},
	"probes.pprof.seconds": {
		doc:     "The length of the CPU profile, from 1 to 3600 seconds.",
		def:     "5",
		example: "seconds: 10",
	},
	"probes.pprof.url": {
		typ:     "URL",
		doc:     "The base URL of the /debug/pprof to profile. Without it, a target variant on a cluster is profiled through the API server's service proxy from the Service its target names, and the spec is refused when its target names none.",
		def:     "the variant's target, or its graph's entry",
		example: "url: http://127.0.0.1:6060",
	},
	"probes.traces": {
		doc:     "Receives spans over OTLP (HTTP and gRPC) during each trial, for per-hop and per-filter times in the report. A graph's nodes send theirs without being told; a variant's setup, start, configure and teardown commands find the endpoints in $LATLAB_OTLP_HTTP and $LATLAB_OTLP_GRPC.",
		def:     "false",
		example: "traces: true",
	},

	"validity": {
		doc:     "The bounds each run is checked against once measured. A run past one is stored with a flag and its reason, kept and shown, and left out of the report's numbers unless --include-flagged, but for too_few_samples, which only marks the percentiles few requests can carry.",
		def:     "the defaults of its keys",
		example: "validity: {max_error_ratio: 0.5%, samples_for: p90}",
	},
	"validity.max_error_ratio": {
		doc:     "Flags errors when the share of requests that failed, or were answered with a status outside load.success, is above this; from 0 to 100%.",
		def:     "1%",
		example: "max_error_ratio: 0.1%",
	},
	"validity.max_lag_p99": {
		doc:     "Flags generator_saturated, in open mode, when the p99 of lag (actual send minus intended send) is above this: requests left late. Positive, at most 24h.",
		def:     "5ms",
		example: "max_lag_p99: 1ms",
	},
	"validity.min_achieved": {
		doc:     "Flags generator_saturated, in open mode, when fewer than this share of the requests due in the run were sent; above 0, at most 100%.",
		def:     "99%",
		example: "min_achieved: 95%",
	},
	"validity.cpu_budget": {
		doc:     "Flags target_cpu_high when a target, with every process under it, used on average more than this share of the CPUs it may use; above 0, at most 100%. The same setting as probes.process.cpu_budget.",
		def:     "75%",
		example: "cpu_budget: 90%",
	},
	"validity.max_trend": {
		doc:     "Flags trend when the target's service time rises over the run (in ramp mode, over its hold) by more than this share of its median, with a CI above zero and beyond four times the run's own wander; above 0, up to 10000%.",
		def:     "10%",
		example: "max_trend: 20%",
	},
	"validity.samples_for": {
		typ:     "percentile (p90)",
		doc:     "The percentile too_few_samples asks enough requests for: 10/(1-q), 1000 for p99, 100 for p90. A percentile above p0 and below p100.",
		def:     "p99",
		example: "samples_for: p90",
	},
}
