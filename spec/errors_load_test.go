package spec

import "testing"

// TestParseSpecLoadErrors covers load and its overrides.
func TestParseSpecLoadErrors(t *testing.T) {
	testErrors(t, []errorCase{
		{
			name: "load not a mapping",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload: [100]\n",
			want: "spec.yaml:4: load: expected a mapping, got a sequence",
		},
		{
			name: "load unknown field",
			spec: loadBase + "  rate: 100\n",
			want: "spec.yaml:8: load.rate: unknown field; did you mean rates?",
		},
		{
			name: "mode unknown",
			spec: loadBase + "  mode: fast\n",
			want: "spec.yaml:8: load.mode: want open, closed, ramp or sequential, got \"fast\"",
		},
		{
			name: "open without rates",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  duration: 5s\n",
			want: "spec.yaml:4: load.rates: missing: open mode needs rates (requests per second)",
		},
		{
			name: "rates empty",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  rates: []\n",
			want: "spec.yaml:5: load.rates: expected at least one rate",
		},
		{
			name: "rates not numbers",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  rates: [100, fast, -5, .nan]\n",
			want: "spec.yaml:5: load.rates[1]: \"fast\" is not a rate: want requests per second (0 or more), such as 100, or per a period, such as 100/s or 6000/m\n" +
				"spec.yaml:5: load.rates[3]: expected a finite number, got .nan\n" +
				"spec.yaml:5: load.rates[2]: want a positive rate, got -5",
		},
		{
			name: "rates with a bad period",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  rates: [500/s, 100/q, {r: 1}]\n",
			want: "spec.yaml:5: load.rates[1]: \"100/q\" is not a rate: the period after / must be a positive duration, such as s, 1s, m or 100ms\n" +
				"spec.yaml:5: load.rates[2]: expected a rate, such as 500 or 500/s, got a mapping",
		},
		{
			name: "rates repeated",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  rates: [100, 200, 100]\n",
			want: "spec.yaml:5: load.rates[2]: duplicate rate 100",
		},
		{
			name: "open with concurrency",
			spec: loadBase + "  concurrency: [10]\n",
			want: "spec.yaml:8: load.concurrency: open mode takes rates, not concurrency; give mode: closed for a closed loop",
		},
		{
			name: "closed without concurrency",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: closed\n  rates: [100]\n",
			want: "spec.yaml:5: load.concurrency: missing: closed mode needs concurrency (workers)\n" +
				"spec.yaml:6: load.rates: closed mode takes concurrency, not rates; give mode: open for an open loop",
		},
		{
			name: "concurrency not whole",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: closed\n  concurrency: [0, 1.5, 10, 10]\n",
			want: "spec.yaml:6: load.concurrency[1]: 1.5 is not a whole number in range\n" +
				"spec.yaml:6: load.concurrency[0]: want at least 1, got 0\n" +
				"spec.yaml:6: load.concurrency[3]: duplicate concurrency 10",
		},
		{
			name: "ramp without ramp",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: ramp\n  concurrency: [300]\n",
			want: "spec.yaml:5: load.ramp: missing: ramp mode needs ramp: {burst, every}",
		},
		{
			name: "ramp without every",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: ramp\n  concurrency: [300]\n  ramp: {burst: 50, evry: 30s}\n",
			want: "spec.yaml:7: load.ramp.evry: unknown field; did you mean every?\n" +
				"spec.yaml:7: load.ramp.every: missing",
		},
		{
			name: "ramp in open mode",
			spec: loadBase + "  ramp: {burst: 50, every: 30s}\n",
			want: "spec.yaml:8: load.ramp: only ramp mode takes a ramp",
		},
		{
			name: "sequential with rates",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: sequential\n  rates: [100]\n",
			want: "spec.yaml:6: load.rates: sequential mode sends one request at a time: it takes neither rates nor concurrency",
		},
		{
			name: "arrivals in closed mode",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: closed\n  concurrency: [10]\n  arrivals: poisson\n",
			want: "spec.yaml:7: load.arrivals: only open mode takes arrivals",
		},
		{
			name: "realtime in closed mode",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: closed\n  concurrency: [10]\n  realtime: true\n",
			want: "spec.yaml:7: load.realtime: only open mode takes realtime",
		},
		{
			name: "realtime in a load pod",
			spec: "version: 1\nname: t\nkubernetes: {image: latlab}\nvariants: [{name: a, target: 'http://web.bench.svc/'}]\nload:\n  on: kubernetes\n  rates: [10]\n  realtime: true\n",
			want: "spec.yaml:8: load.realtime: a load pod runs without capabilities, and real-time threads need CAP_SYS_NICE: drop it, or run the load here",
		},
		{
			name: "realtime neither true, false nor auto",
			spec: loadBase + "  realtime: sometimes\n",
			want: `spec.yaml:8: load.realtime: want true, false or auto, got "sometimes"`,
		},
		{
			name: "realtime over HTTP/2",
			spec: loadBase + "  h2c: true\n  realtime: true\n",
			want: "spec.yaml:9: load.realtime: makes the lean HTTP/1.1 client's event loops real-time threads; HTTP/2 and net/http have none",
		},
		{
			name: "duration without unit",
			spec: loadBase + "  duration: 10\n",
			want: "spec.yaml:8: load.duration: expected a duration such as 10s, got 10",
		},
		{
			name: "duration negative",
			spec: loadBase + "  duration: -1s\n",
			want: "spec.yaml:8: load.duration: want a positive duration, got -1s",
		},
		{
			name: "durations zero",
			spec: loadBase + "  duration: 0s\n  interval: 0s\n  timeout: -2s\n",
			want: "spec.yaml:8: load.duration: want a positive duration, got 0s\n" +
				"spec.yaml:9: load.interval: want a positive duration, got 0s\n" +
				"spec.yaml:10: load.timeout: want a positive duration, got -2s",
		},
		{
			name: "ramp every zero",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: ramp\n  concurrency: [300]\n  ramp: {burst: 5, every: 0s}\n",
			want: "spec.yaml:7: load.ramp: want a burst of at least 1 and a positive period, got 5 and 0s",
		},
		{
			name: "duration not a duration",
			spec: loadBase + "  duration: ten seconds\n",
			want: "spec.yaml:8: load.duration: \"ten seconds\" is not a duration such as 10s or 1m30s",
		},
		{
			name: "duration too long",
			spec: loadBase + "  duration: 48h\n",
			want: "spec.yaml:8: load.duration: want at most 24h0m0s, got 48h0m0s",
		},
		{
			name: "requests zero",
			spec: loadBase + "  requests: 0\n",
			want: "spec.yaml:8: load.requests: want a positive number of requests, got 0",
		},
		{
			name: "limits zero or negative",
			spec: loadBase + "  max_in_flight: -3\n  connections: 0\n  requests: 2000000000000\n  pool: 0\n",
			want: "spec.yaml:8: load.max_in_flight: want at least 1, got -3\n" +
				"spec.yaml:9: load.connections: want at least 1, got 0\n" +
				"spec.yaml:10: load.requests: want at most 1000000000000, got 2000000000000\n" +
				"spec.yaml:11: load.pool: want at least 1, got 0",
		},
		{
			name: "path without slash",
			spec: loadBase + "  path: busywork\n",
			want: "spec.yaml:8: load.path: \"busywork\" does not start with a single /",
		},
		{
			name: "path with fragment",
			spec: loadBase + "  path: /a#b\n",
			want: "spec.yaml:8: load.path: \"/a#b\" has a fragment, which is never sent",
		},
		{
			name: "method not a token",
			spec: loadBase + "  method: GE T\n",
			want: "spec.yaml:8: load.method: \"GE T\" is not an HTTP method",
		},
		{
			name: "header bad name",
			spec: loadBase + "  headers: {Bad Name: x}\n",
			want: "spec.yaml:8: load.headers.Bad Name: invalid header name",
		},
		{
			name: "header twice",
			spec: loadBase + "  headers: {content-type: a, Content-Type: b}\n",
			want: "spec.yaml:8: load.headers.Content-Type: duplicate header Content-Type",
		},
		{
			name: "header bad value",
			spec: loadBase + "  headers: {X-A: \"a\\nb\"}\n",
			want: "spec.yaml:8: load.headers.X-A: invalid value \"a\\nb\"",
		},
		{
			name: "body and body_file",
			spec: loadBase + "  body: x\n  body_file: body.json\n",
			want: "spec.yaml:9: load.body_file: cannot be used with body (line 8)",
		},
		{
			name: "body_file missing",
			spec: loadBase + "  body_file: nope.json\n",
			want: "spec.yaml:8: load.body_file: testdata/specs/nope.json: no such file or directory",
		},
		{
			name: "targets with path",
			spec: loadBase + "  path: /\n  targets: targets.txt\n",
			want: "spec.yaml:9: load.targets: cannot be used with path (line 8): the targets file gives the requests",
		},
		{
			name: "targets and scenario",
			spec: loadBase + "  targets: targets.txt\n  scenario: scenario.yaml\n",
			want: "spec.yaml:9: load.scenario: cannot be used with targets (line 8)",
		},
		{
			name: "targets do not parse",
			spec: loadBase + "  targets: bad-targets.txt\n",
			want: "testdata/specs/bad-targets.txt:2: header: expected \"Name: value\", got \"Bad Header Line\"",
		},
		{
			name: "success not codes",
			spec: loadBase + "  success: 2xx\n",
			want: "spec.yaml:8: load.success: \"2xx\" is not a status code (100 to 999, or a gRPC status such as OK or UNAVAILABLE)",
		},
		{
			name: "http2 and h2c",
			spec: loadBase + "  http2: true\n  h2c: true\n",
			want: "spec.yaml:9: load.h2c: HTTP/2 over cleartext cannot be used with http2 (over TLS)",
		},
		{
			name: "client unknown",
			spec: loadBase + "  client: curl\n",
			want: "spec.yaml:8: load.client: want lean or nethttp, got \"curl\"",
		},
		{
			name: "streams zero",
			spec: loadBase + "  streams: 0\n",
			want: "spec.yaml:8: load.streams: want at least 1, got 0",
		},
		{
			name: "insecure not a boolean",
			spec: loadBase + "  insecure: yes\n",
			want: "spec.yaml:8: load.insecure: expected true or false, got \"yes\"",
		},
		{
			name: "variant load field",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    load: {rates: [x]}\n",
			want: "spec.yaml:8: variants[0].load.rates[0]: \"x\" is not a rate: want requests per second (0 or more), such as 100, or per a period, such as 100/s or 6000/m",
		},
		{
			name: "variant mode without concurrency",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    load:\n      mode: closed\n",
			want: "spec.yaml:9: variants[0].load.concurrency: missing: closed mode needs concurrency (workers)",
		},
		{
			name: "rates after one that does not decode",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  rates: [fast, 100, 100]\n",
			want: "spec.yaml:5: load.rates[0]: \"fast\" is not a rate: want requests per second (0 or more), such as 100, or per a period, such as 100/s or 6000/m\n" +
				"spec.yaml:5: load.rates[2]: duplicate rate 100",
		},
		{
			name: "rates one a line",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  rates:\n    - 0\n    - 2e9\n    - 5\n    - 5\n",
			want: "spec.yaml:6: load.rates[0]: want a positive rate, got 0\n" +
				"spec.yaml:7: load.rates[1]: want at most 1e+09, got 2e+09\n" +
				"spec.yaml:9: load.rates[3]: duplicate rate 5",
		},
		{
			name: "ramp burst zero",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: ramp\n  concurrency: [300]\n  ramp: {burst: 0, every: 30s}\n",
			want: "spec.yaml:7: load.ramp: want a burst of at least 1 and a positive period, got 0 and 30s",
		},
		{
			name: "every problem of a load",
			spec: loadBase + "  arrivals: uniform\n  streams: 0\n  client: curl\n",
			want: "spec.yaml:8: load.arrivals: want constant or poisson, got \"uniform\"\n" +
				"spec.yaml:9: load.streams: want at least 1, got 0\n" +
				"spec.yaml:10: load.client: want lean or nethttp, got \"curl\"",
		},
		{
			name: "variant load value",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    load: {rates: [0]}\n",
			want: "spec.yaml:8: variants[0].load.rates[0]: want a positive rate, got 0",
		},
		{
			name: "spec load problem under a variant's overrides",
			spec: "version: 1\nname: t\nload:\n  rates: [100]\n  streams: 0\nvariants:\n  - name: a\n    target: http://127.0.0.1:9000/\n    load: {rates: [200]}\n",
			want: "spec.yaml:5: load.streams: want at least 1, got 0",
		},
		{
			name: "names empty or not finite",
			spec: loadBase + "  client: ''\n  arrivals: ''\n  mode: ''\n",
			want: "spec.yaml:8: load.client: empty\n" +
				"spec.yaml:9: load.arrivals: empty\n" +
				"spec.yaml:10: load.mode: empty",
		},
		{
			name: "rate infinite",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  rates: [.inf]\n",
			want: "spec.yaml:5: load.rates[0]: expected a finite number, got .inf",
		},
		{
			name: "h2c before http2",
			spec: loadBase + "  h2c: true\n  http2: true\n",
			want: "spec.yaml:8: load.h2c: HTTP/2 over cleartext cannot be used with http2 (over TLS)",
		},
		{
			name: "variant load unknown field",
			spec: varBase + "    target: http://127.0.0.1:9000/\n    load: {pth: /}\n",
			want: "spec.yaml:8: variants[0].load.pth: unknown field; did you mean path?",
		},
	})
}
