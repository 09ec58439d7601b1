package spec

import "testing"

// TestParseSpecOptionErrors covers warm-up, plan options, side-loads,
// probes, validity, SLO and CPUs.
func TestParseSpecOptionErrors(t *testing.T) {
	testErrors(t, []errorCase{
		{
			name: "warmup without duration",
			spec: loadBase + "warmup: {rate: same}\n",
			want: "spec.yaml:8: warmup.duration: missing",
		},
		{
			name: "warmup rate word",
			spec: loadBase + "warmup: {duration: 5s, rate: fast}\n",
			want: "spec.yaml:8: warmup.rate: expected same, a percentage such as 50%, or a rate such as 500 or 500/s, got \"fast\"",
		},
		{
			name: "warmup rate zero",
			spec: loadBase + "warmup: {duration: 5s, rate: 0%}\n",
			want: "spec.yaml:8: warmup.rate: 0% is not above 0%",
		},
		{
			name: "warmup share in sequential mode",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: sequential\nwarmup: {duration: 5s, rate: 50%}\n",
			want: "spec.yaml:6: warmup.rate: sequential mode has no rate to take a share of: give same or requests per second",
		},
		{
			name: "warmup share in a sequential variant",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    load: {mode: sequential}\nwarmup: {duration: 5s, rate: 50%}\n",
			want: "spec.yaml:9: warmup.rate: variant a runs in sequential mode, which has no rate to take a share of: give same or requests per second",
		},
		{
			name: "warmup unknown field",
			spec: loadBase + "warmup: {duration: 5s, requests: 10}\n",
			want: "spec.yaml:8: warmup.requests: unknown field; expected duration, rate",
		},
		{
			name: "runs zero",
			spec: loadBase + "runs: 0\n",
			want: "spec.yaml:8: runs: 0 is less than 1",
		},
		{
			name: "plan too long",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: {rates: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\nruns: 100000\n",
			want: "spec.yaml:5: runs: 11 variant levels × 100000 runs make 1100000 trials, more than 1000000",
		},
		{
			name: "order unknown",
			spec: loadBase + "order: random\n",
			want: "spec.yaml:8: order: expected interleaved or grouped, got \"random\"",
		},
		{
			name: "restart unknown",
			spec: loadBase + "restart: always\n",
			want: "spec.yaml:8: restart: expected never, per-run or per-rate, got \"always\"",
		},
		{
			name: "seed not a number",
			spec: loadBase + "seed: abc\n",
			want: "spec.yaml:8: seed: expected a whole number, got \"abc\"",
		},
		{
			name: "sideloads empty",
			spec: loadBase + "sideloads: []\n",
			want: "spec.yaml:8: sideloads: expected at least one sideload",
		},
		{
			name: "sideload incomplete",
			spec: loadBase + "sideloads:\n  - {target: localhost}\n",
			want: "spec.yaml:9: sideloads[0].target: expected an absolute http or https URL, got \"localhost\"; did you mean \"http://localhost\"?\n" +
				"spec.yaml:9: sideloads[0].rate: missing",
		},
		{
			name: "probes unknown",
			spec: loadBase + "probes: {metric: {}}\n",
			want: "spec.yaml:8: probes.metric: unknown field; did you mean metrics?",
		},
		{
			name: "metrics window shorter",
			spec: loadBase + "probes:\n  metrics: {interval: 10s, window: 5s}\n",
			want: "spec.yaml:9: probes.metrics.window: 5s is shorter than the interval, 10s",
		},
		{
			name: "metrics urls empty",
			spec: loadBase + "probes:\n  metrics: {urls: []}\n",
			want: "spec.yaml:9: probes.metrics.urls: expected at least one URL",
		},
		{
			name: "prometheus incomplete",
			spec: loadBase + "probes:\n  prometheus: {step: 5s}\n",
			want: "spec.yaml:9: probes.prometheus.url: missing\n" +
				"spec.yaml:9: probes.prometheus.queries: missing",
		},
		{
			name: "prometheus query name",
			spec: loadBase + "probes:\n  prometheus: {url: 'http://127.0.0.1:9090', queries: {p-99: 'up'}}\n",
			want: "spec.yaml:9: probes.prometheus.queries.p-99: \"p-99\" is not a query name: use letters, digits and '_', starting with a letter or '_'",
		},
		{
			name: "process budget too high",
			spec: loadBase + "probes:\n  process: {cpu_budget: 150%}\n",
			want: "spec.yaml:9: probes.process.cpu_budget: 150% is more than 100%",
		},
		{
			name: "process budget without percent",
			spec: loadBase + "probes:\n  process: {cpu_budget: 75}\n",
			want: "spec.yaml:9: probes.process.cpu_budget: 75 is more than 100%; write a percentage such as 75% or a ratio such as 0.75",
		},
		{
			name: "process budget differs",
			spec: loadBase + "validity: {cpu_budget: 80%}\nprobes:\n  process: {cpu_budget: 75%}\n",
			want: "spec.yaml:10: probes.process.cpu_budget: 75% differs from validity.cpu_budget, 80% (line 8): give it once",
		},
		{
			name: "process pids",
			spec: loadBase + "probes:\n  process: {pids: [0], names: ['']}\n",
			want: "spec.yaml:9: probes.process.pids[0]: 0 is less than 1\n" +
				"spec.yaml:9: probes.process.names[0]: empty",
		},
		{
			name: "pprof at the end",
			spec: loadBase + "probes:\n  pprof: {at: 100%, seconds: 0}\n",
			want: "spec.yaml:9: probes.pprof.at: 100% leaves no time to profile: give less than 100%\n" +
				"spec.yaml:9: probes.pprof.seconds: 0 is less than 1",
		},
		{
			name: "traces not a boolean",
			spec: loadBase + "probes: {traces: yes}\n",
			want: "spec.yaml:8: probes.traces: expected true or false, got \"yes\"",
		},
		{
			name: "validity unknown",
			spec: loadBase + "validity: {max_errors: 1%}\n",
			want: "spec.yaml:8: validity.max_errors: unknown field; expected max_error_ratio, max_lag_p99, min_achieved, cpu_budget, max_trend, samples_for",
		},
		{
			name: "validity samples_for typo",
			spec: loadBase + "validity: {sample_for: p90}\n",
			want: "spec.yaml:8: validity.sample_for: unknown field; did you mean samples_for?",
		},
		{
			name: "validity samples_for",
			spec: loadBase + "validity: {samples_for: p100}\n",
			want: "spec.yaml:8: validity.samples_for: \"p100\": expected a percentile above p0 and below p100, such as p90 or p99",
		},
		{
			name: "validity samples_for not a percentile",
			spec: loadBase + "validity: {samples_for: 90%}\n",
			want: "spec.yaml:8: validity.samples_for: \"90%\": expected a percentile above p0 and below p100, such as p90 or p99",
		},
		{
			name: "validity percentage",
			spec: loadBase + "validity: {max_error_ratio: abc, min_achieved: 0%}\n",
			want: "spec.yaml:8: validity.max_error_ratio: expected a percentage such as 75%, got \"abc\"\n" +
				"spec.yaml:8: validity.min_achieved: 0% is not above 0%",
		},
		{
			name: "slo unknown",
			spec: loadBase + "slo: {p99x: 50ms}\n",
			want: "spec.yaml:8: slo.p99x: unknown field: expected a percentile such as p50, p99 or p99.9",
		},
		{
			name: "slo empty",
			spec: loadBase + "slo: {}\n",
			want: "spec.yaml:8: slo: expected at least one bound, such as p99: 50ms",
		},
		{
			name: "slo p0 and repeat",
			spec: loadBase + "slo: {p0: 1ms, p99: 50ms, p99.0: 40ms}\n",
			want: "spec.yaml:8: slo.p0: p0 is not a percentile above p0 and at most p100\n" +
				"spec.yaml:8: slo.p99.0: the same percentile as line 8",
		},
		{
			name: "slo errors",
			spec: loadBase + "slo: {errors: 2}\n",
			want: "spec.yaml:8: slo.errors: 2 is more than 100%; write a percentage such as 75% or a ratio such as 0.75",
		},
		{
			name: "cpus not a list",
			spec: loadBase + "cpus: {load: 0, targets: one}\n",
			want: "spec.yaml:8: cpus.targets: \"one\" is not a CPU number or range; expected a CPU list such as 0 or 2-3",
		},
		{
			name: "cpus backwards range",
			spec: loadBase + "cpus:\n  load: 3-1\n",
			want: "spec.yaml:9: cpus.load: \"3-1\" is not a CPU range; expected a CPU list such as 0 or 2-3",
		},
		{
			name: "cpus unknown field and empty",
			spec: loadBase + "cpus: {generator: 0, load: ''}\n",
			want: "spec.yaml:8: cpus.generator: unknown field; expected load, targets\nspec.yaml:8: cpus.load: empty",
		},
		{
			name: "cpus not a mapping",
			spec: loadBase + "cpus: 0\n",
			want: "spec.yaml:8: cpus: expected a mapping, got an integer",
		},
	})
}
