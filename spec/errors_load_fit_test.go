package spec

import "testing"

// TestParseSpecLoadConflicts holds that a load field the others make
// meaningless (see load.Settings.Conflicts), or a value past its bound (see
// load.Settings.Validate), is refused at its line, as latlab attack
// refuses its flag.
func TestParseSpecLoadConflicts(t *testing.T) {
	testErrors(t, []errorCase{
		{
			name: "streams without HTTP/2",
			spec: loadBase + "  streams: 8\n",
			want: "spec.yaml:8: load.streams: streams are HTTP/2's and gRPC's; give http2 or h2c too, or a gRPC target",
		},
		{
			name: "streams with http2 false",
			spec: loadBase + "  http2: false\n  streams: 8\n",
			want: "spec.yaml:9: load.streams: streams are HTTP/2's and gRPC's; give http2 or h2c too, or a gRPC target",
		},
		{
			name: "client and no_keepalive with HTTP/2",
			spec: loadBase + "  h2c: true\n  client: lean\n  no_keepalive: true\n",
			want: "spec.yaml:9: load.client: picks the HTTP/1.1 client; HTTP/2 always goes through Go's http2\n" +
				"spec.yaml:10: load.no_keepalive: HTTP/2 multiplexes requests on connections it keeps; drop no_keepalive",
		},
		{
			name: "connections in sequential mode",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: sequential\n  connections: 2\n",
			want: "spec.yaml:6: load.connections: mode: sequential uses one connection",
		},
		{
			name: "variant HTTP/2 under the spec's client",
			spec: "version: 1\nname: t\nload:\n  rates: [100]\n  client: nethttp\nvariants:\n  - name: a\n    target: https://127.0.0.1:9000/\n    load: {http2: true}\n",
			want: "spec.yaml:5: load.client: picks the HTTP/1.1 client; HTTP/2 always goes through Go's http2",
		},
		{
			name: "conflict of a field already wrong",
			spec: loadBase + "  streams: 20000\n",
			want: "spec.yaml:8: load.streams: want at most 10000, got 20000",
		},
		{
			name: "counts past their bounds",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: closed\n" +
				"  concurrency: [1000000, 1000001]\n  connections: 1000001\n  h2c: true\n  streams: 10001\n",
			want: "spec.yaml:6: load.concurrency[1]: want at most 1000000, got 1000001\n" +
				"spec.yaml:7: load.connections: want at most 1000000, got 1000001\n" +
				"spec.yaml:9: load.streams: want at most 10000, got 10001",
		},
		{
			name: "durations past their bounds",
			spec: loadBase + "  interval: 25h\n  timeout: 24h0m1s\n",
			want: "spec.yaml:8: load.interval: want at most 24h0m0s, got 25h0m0s\n" +
				"spec.yaml:9: load.timeout: want at most 24h0m0s, got 24h0m1s",
		},
		{
			name: "ramp past its bounds",
			spec: "version: 1\nname: t\nvariants: [{name: a, target: 'http://127.0.0.1:9000/'}]\nload:\n  mode: ramp\n  concurrency: [300]\n  ramp: {burst: 1000001, every: 30s}\n",
			want: "spec.yaml:7: load.ramp: want a burst of at most 1000000 and a period of at most 24h0m0s, got 1000001 and 30s",
		},
		{
			name: "method not a token",
			spec: loadBase + "  method: 'GET(1)'\n",
			want: "spec.yaml:8: load.method: \"GET(1)\" is not an HTTP method",
		},
	})
}

// TestParseSpecLoadNoConflict holds that HTTP/1.1 fields stand beside an
// http2 that is false, and that the method is kept in upper case.
func TestParseSpecLoadNoConflict(t *testing.T) {
	s := mustParse(t, loadBase+"  http2: false\n  client: nethttp\n  no_keepalive: true\n  connections: 4\n  method: purge\n")
	if s.Load.Client != "nethttp" || !s.Load.NoKeepAlive || s.Load.Connections != 4 || s.Load.Method != "PURGE" {
		t.Errorf("load %+v: want client nethttp, no keep-alive, 4 connections, PURGE", s.Load)
	}
}

// TestParseSpecStreamsGRPC takes streams without HTTP/2 when a variant
// speaks gRPC, whose connections' streams they cap.
func TestParseSpecStreamsGRPC(t *testing.T) {
	spec := "version: 1\nname: t\nvariants: [{name: a, target: 'grpc://127.0.0.1:9000/grpc.health.v1.Health/Check'}]\nload:\n  rates: [100]\n  streams: 8\n"
	s, err := ParseSpec("spec.yaml", []byte(spec), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Variants[0].Load.Settings().Streams; got != 8 {
		t.Errorf("streams %d, want 8", got)
	}
}
