package spec

// specDocs documents every key SpecKeys finds, by key: what it does, its
// default and an example; TestSpecReferenceComplete keeps it complete.
// The load's keys are in reference_docs_load.go, the probes' and validity's
// in reference_docs_probes.go.
var specDocs = joinDocs(specDocsTop, specDocsLoad, specDocsProbes)

// specDocDups are the keys documented in more than one part of specDocs.
var specDocDups []string

// joinDocs returns the parts of specDocs as one, noting in specDocDups
// the keys given twice.
func joinDocs(parts ...map[string]specDoc) map[string]specDoc {
	out := map[string]specDoc{}
	for _, p := range parts {
		for k, d := range p {
			if _, dup := out[k]; dup {
				specDocDups = append(specDocDups, k)
			}
			out[k] = d
		}
	}
	return out
}

// specDocsTop documents the top-level keys, variants, warmup, runs,
// sideloads, slo, cpus and kubernetes.
var specDocsTop = map[string]specDoc{
	"version": {
		doc:     "The version of the spec format. This latlab reads version 1 and refuses any other.",
		def:     "required",
		example: "version: 1",
	},
	"name": {
		doc:     "The experiment's name, under which the results database keeps its runs. Up to 63 letters, digits, dots, underscores and hyphens, starting with a letter or digit.",
		def:     "required",
		example: "name: filter-overhead",
	},
	"baseline": {
		typ:     "string (a variant's name)",
		doc:     "The variant the others are compared against: the report's overheads, and the precision `runs: auto` asks for, are measured against it. It must name one of the variants.",
		def:     "the first variant",
		example: "baseline: plain",
	},
	"order": {
		doc:     "The order of the trials. interleaved runs each repetition's levels in a seeded random order, a level's variants side by side, so that each variant's run pairs with the baseline's of the same repetition; grouped runs variant by variant, level by level, repetitions together. `runs: auto` needs interleaved, and raising runs is refused under grouped.",
		def:     "interleaved",
		example: "order: grouped",
	},
	"seed": {
		doc:     "The seed of the interleaved order: the same seed runs the same order. latlab run --dry-run prints the seed it would use, and --seed must agree with the spec's; a resumed experiment keeps the seed it stored.",
		def:     "drawn at random by latlab run and stored",
		example: "seed: 42",
	},
	"restart": {
		doc:     "When variants are set up again: never sets each variant up once and keeps it warm across its trials; per-run sets it up before every trial and tears it down after; per-rate sets it up again whenever its level changes.",
		def:     "never",
		example: "restart: per-run",
	},

	"variants": {
		doc:     "The systems under test, at least one: each a graph latlab starts and stops, or a target at a URL. Each variant runs at every level of its load, runs times.",
		def:     "required",
		example: "variants: [{name: plain, graph: graphs/chain.yaml}]",
	},
	"variants[].name": {
		doc:     "The variant's name in the plan, the reports and the results database: up to 63 letters, digits, dots, underscores and hyphens, starting with a letter or digit, and unique among the variants.",
		def:     "required",
		example: "name: plain",
	},
	"variants[].graph": {
		typ:     "file path",
		doc:     "A topology file (as latlab graph reads it) that latlab starts here for the variant's trials and stops after, or deploys to the cluster with `on: kubernetes`; the load goes to its entry service. Give exactly one of graph and target; start and ready are for targets. With the load on a cluster, a graph must be `on: kubernetes` too: a load pod cannot reach one started here.",
		def:     "none",
		example: "graph: graphs/chain.yaml",
	},
	"variants[].target": {
		typ:     "URL",
		doc:     "The absolute http or https URL of a system under test that is not a graph: one latlab runs with start, or one already running. The requests go to its scheme and host, and to its path unless load.path gives one. A gRPC method is grpc://HOST:PORT/package.Service/Method (grpcs:// over TLS): each request is one call (streaming ones as load.messages says), its message the body in protobuf's JSON mapping, its types from load.proto or the server's reflection service. Give exactly one of graph and target. For a variant on a cluster, write it as the load pod reaches it, such as http://web.shop.svc:8080/.",
		def:     "none",
		example: "target: http://127.0.0.1:9000/",
	},
	"variants[].start": {
		typ:     "shell command",
		doc:     "A long-running command (sh -c, in the spec's folder) that runs the target; latlab starts it after setup, runs it under a reaper and stops it, with every process it started, when the variant is taken down. Its target (or ready URL) must not accept connections before it runs; without ready, latlab waits until the target answers at all. For targets only: latlab starts a graph itself.",
		def:     "none",
		example: "start: latlab serve --listen 127.0.0.1:19000",
	},
	"variants[].setup": {
		typ:     "shell command",
		doc:     "A command (sh -c, in the spec's folder) that sets the variant up before it starts: before a graph's nodes, a target's start command, or a deployment to a cluster; if it fails, so does the trial. A first word holding a '/' must be an executable file.",
		def:     "none",
		example: "setup: ./start-proxy.sh",
	},
	"variants[].teardown": {
		typ:     "shell command",
		doc:     "A command (sh -c, in the spec's folder) run when the variant is taken down, after its graph's nodes or its start command have stopped: at the end, after Ctrl-C, and as restart says. Its failure is reported, and the run goes on.",
		def:     "none",
		example: "teardown: ./stop-proxy.sh",
	},
	"variants[].configure": {
		typ:     "shell command",
		doc:     "A command (sh -c, in the spec's folder) run once the variant is ready, before its load: for settings a server takes through its own API. Graphs and targets alike; if it fails, the variant is taken down and the trial fails.",
		def:     "none",
		example: "configure: ./apply-config.sh",
	},
	"variants[].ready": {
		typ:     "URL",
		doc:     "A URL latlab polls with GET, once the target is set up and started, until it answers 200, for at most ready_timeout. For targets here only: a graph is ready when its nodes answer, and a variant on a cluster once its workloads have rolled out and its Services have ready endpoints.",
		def:     "none (with start: until the target answers at all)",
		example: "ready: http://127.0.0.1:9000/healthz",
	},
	"variants[].ready_timeout": {
		doc:     "How long latlab waits for the variant to be ready (its ready URL, its graph's nodes, or its workloads on a cluster) before its trial fails. Positive, at most 24h.",
		def:     "30s; 5m for a variant on a cluster",
		example: "ready_timeout: 1m",
	},
	"variants[].load": {
		doc:     "This variant's changes to the spec's load: the keys of load (see that section) but those saying where the load runs (on, image, namespace, node_selector, tolerations, resources), and not shards or clock_skew. A key given replaces the spec's and drops the spec's keys it excludes: concurrency drops rates, a scenario drops path, method, headers and body, a mode drops the level keys it does not take.",
		def:     "the spec's load",
		example: "load: {path: /busywork}",
	},
	"variants[].expect": {
		doc:     "The latencies this variant is expected to have, by percentile (p50, p90, p95, p99, p99.9 or p100), each once; the report sets each beside what was measured, with its interval and a verdict: within, above or below.",
		def:     "none",
		example: "expect: {p50: 30ms}",
	},
	"variants[].on": {
		typ:     refOneOf("local", OnKubernetes),
		doc:     "Where a graph runs: kubernetes deploys it to the cluster, where it is kept across its warm-up and runs and deleted at the end. For graphs only (a target goes to the cluster with kubernetes.manifests); it needs kubernetes.image, and the load on the cluster too (`load: {on: kubernetes}`).",
		def:     "local",
		example: "on: kubernetes",
	},
	"variants[].kubernetes": {
		doc:     "Places the variant on the cluster: manifests deploys a target; a graph goes there with `on: kubernetes`, and may name its namespace here. Given without manifests, the variant must be `on: kubernetes`.",
		def:     "none",
		example: "kubernetes: {manifests: deploy/, namespace: mesh}",
	},
	"variants[].kubernetes.manifests": {
		typ:     "file or folder path",
		doc:     "A YAML or JSON file, or a folder of them, holding the Kubernetes objects of a target variant: applied (server-side apply) when its first trial comes, awaited until rolled out, and deleted at the end. For targets only; objects of one kind, namespace and name in two variants are refused: give the variants namespaces of their own.",
		def:     "none",
		example: "manifests: deploy/",
	},
	"variants[].kubernetes.namespace": {
		typ:     "string (a namespace's name)",
		doc:     "The namespace the variant is deployed to.",
		def:     "the spec's kubernetes.namespace",
		example: "namespace: mesh",
	},

	"warmup": {
		doc:     "Load sent to the variant before each trial's measured load and never counted with it (it is stored apart); the measured load goes on over the connections it opened. duration is required.",
		def:     "none",
		example: "warmup: {duration: 5s, rate: same}",
	},
	"warmup.duration": {
		doc:     "How long the warm-up lasts: positive, at most 24h.",
		def:     "required",
		example: "duration: 5s",
	},
	"warmup.rate": {
		typ:     "same, percent (50%) or rate (500, 500/s)",
		doc:     "How hard the warm-up loads: same as the trial; a share of the trial's rate (open mode) or concurrency (closed and ramp modes), above 0 and up to 1000%; or requests per second, sent in open loop whatever the trial's mode. Sequential mode has no rate to take a share of: give same or requests per second.",
		def:     "same",
		example: "rate: 50%",
	},

	"runs": {
		typ:     "integer, auto or mapping",
		doc:     "Repetitions of each variant at each level, from 1 to 100000; raise it and run the same command again to go on with the stored experiment (lowering it is refused). auto, or a mapping of min, max, precision, relative, quantiles and budget, repeats each variant and level until its overheads against the baseline are precise enough, and needs `order: interleaved`. A plan holds at most 1,000,000 trials.",
		def:     "1",
		example: "runs: auto",
	},
	"runs.min": {
		doc:     "The repetitions every variant and level runs before `runs: auto` judges them, from 1 to 100000; not above max.",
		def:     "6, or max if that is less",
		example: "min: 6",
	},
	"runs.max": {
		doc:     "The most repetitions `runs: auto` runs of a variant and level, precise or not, from 1 to 100000.",
		def:     "100, or min if that is more",
		example: "max: 40",
	},
	"runs.precision": {
		doc:     "How narrow each overhead's 95% interval (hi - lo) must be for `runs: auto` to stop: a share of the baseline's value of that quantile at that level, above 0 and up to 1000%, or a duration. An interval that meets relative instead will do.",
		def:     "10%",
		example: "precision: 20us",
	},
	"runs.relative": {
		typ:     "percent (50%) or off",
		doc:     "An overhead's 95% interval no wider than this share of the overhead itself is precise too, whatever precision says: +95µs [+68µs, +131µs] answers the question long before its interval is a tenth of the baseline. Above 0 and up to 200%, or off to judge by precision alone. At 50% only an interval far from zero passes (its low end near three quarters of its centre), so an overhead that is not there practically never stops on it.",
		def:     "50%",
		example: "relative: off",
	},
	"runs.quantiles": {
		typ:     "list of percentiles",
		doc:     "The overheads `runs: auto` makes precise: some of the overhead table's p50, p90, p99 and p99.9, each once.",
		def:     "[p50]",
		example: "quantiles: [p50, p99.9]",
	},
	"runs.budget": {
		doc:     "The time the experiment's trials may take in all under `runs: auto`: no repetition starts that would pass it. Positive, at most 24h.",
		def:     "none",
		example: "budget: 1h",
	},

	"sideloads": {
		doc:     "Background load sent during every trial's measured load and never measured with it: each side-load sends GET requests to its target, in open loop at its rate. At least one when given.",
		def:     "none",
		example: "sideloads: [{target: http://127.0.0.1:9100/, rate: 50}]",
	},
	"sideloads[].target": {
		typ:     "URL",
		doc:     "The absolute http or https URL the side-load's requests go to.",
		def:     "required",
		example: "target: http://127.0.0.1:9100/",
	},
	"sideloads[].rate": {
		typ:     "rate (50, 50/s)",
		doc:     "Requests per second, constant: above 0, at most 1e9; a number, or a rate as -r takes it (500/s, 6000/m).",
		def:     "required",
		example: "rate: 50",
	},

	"slo": {
		doc:     "What the run must meet for latlab run to exit 0: latency limits by percentile and an error ratio, at least one; --slo on the command line overrides it. A limit counts as broken when the 95% CI of the median over the valid runs lies wholly past it (with fewer than 6 runs, when every run is past it), and latlab run then exits 1.",
		def:     "none: no gate",
		example: "slo: {p99: 50ms, errors: 1%}",
	},
	"slo.pNN": {
		doc:     "The highest latency allowed at percentile pNN: p50, p90, p95, p99, p99.9 or p100 (the maximum), each once.",
		def:     "none",
		example: "p99: 50ms",
	},
	"slo.errors": {
		doc:     "The highest share of requests allowed to fail, from 0 to 100%.",
		def:     "any",
		example: "errors: 1%",
	},

	"cpus": {
		doc:     "Keeps the load generator and the targets on CPUs of their own. Each CPU must be one latlab may use, checked when the run starts; --dry-run shows where each runs.",
		def:     "nothing pinned",
		example: "cpus: {load: 0}",
	},
	"cpus.load": {
		typ:     "CPU list (0, 2-3)",
		doc:     "The CPUs latlab itself runs on: its load, probes and writer; local shards each take their share of them.",
		def:     "not pinned",
		example: "load: 0",
	},
	"cpus.targets": {
		typ:     "CPU list (0, 2-3)",
		doc:     "The CPUs of the graphs' nodes and of the variants' start, setup and teardown commands, from their first instruction. A target latlab did not start is not pinned: pin it yourself (taskset) away from cpus.load.",
		def:     "with cpus.load, every CPU latlab may use but those",
		example: "targets: 1-3",
	},

	"kubernetes": {
		doc:     "Where the spec's variants and load go on a Kubernetes cluster, which latlab run reaches as kubectl does (--kubeconfig, --context, $KUBECONFIG, ~/.kube/config or in-cluster). Refused when nothing runs there: give a variant `on: kubernetes` or kubernetes.manifests, or `load: {on: kubernetes}`.",
		def:     "none",
		example: "kubernetes: {image: ghcr.io/you/latlab:v1, namespace: bench}",
	},
	"kubernetes.namespace": {
		typ:     "string (a namespace's name)",
		doc:     "The namespace of what latlab deploys and of its load pods, unless a variant or the load names its own.",
		def:     "the kubeconfig context's namespace, else default",
		example: "namespace: bench",
	},
	"kubernetes.image": {
		typ:     "string (container image)",
		doc:     "A container image whose entry point is latlab (the repository's Dockerfile builds one), run by graphs on the cluster and by load pods. A graph `on: kubernetes` needs it, and load pods unless load.image names theirs.",
		def:     "none",
		example: "image: ghcr.io/you/latlab:v1",
	},
}
