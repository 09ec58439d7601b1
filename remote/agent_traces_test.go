package remote

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/latlab/latlab/record"
)

// lockedBuffer is a bytes.Buffer several goroutines may write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Times of the spans traceTarget exports for each request.
const (
	frontServer = 10 * time.Millisecond // front's server span
	frontClient = 6 * time.Millisecond  // its call of back
	backServer  = 4 * time.Millisecond  // back's server span
)

// traceTarget returns the URL of a server on 127.0.0.1 that, before it
// answers a request, exports to otlp (an OTLP/HTTP base URL) the spans a
// graph of two services would make of it, front calling back, every span
// starting as the request came: front's server span, its client span
// calling back and back's server span, of the durations above. The hop
// front → back thus has a network time of frontClient − backServer, front
// a framework time of frontServer − frontClient and back one of
// backServer. It answers 500 when the export fails.
func traceTarget(t *testing.T, otlp string) string {
	t.Helper()
	var traces atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		var trace [16]byte
		trace[0] = 1
		binary.BigEndian.PutUint64(trace[8:], traces.Add(1))
		span := func(id, parent byte, kind tracepb.Span_SpanKind, d time.Duration) *tracepb.Span {
			s := &tracepb.Span{TraceId: trace[:], SpanId: []byte{0, 0, 0, 0, 0, 0, 0, id}, Name: "span", Kind: kind,
				StartTimeUnixNano: uint64(now.UnixNano()), EndTimeUnixNano: uint64(now.Add(d).UnixNano())}
			if parent != 0 {
				s.ParentSpanId = []byte{0, 0, 0, 0, 0, 0, 0, parent}
			}
			return s
		}
		service := func(name string, spans ...*tracepb.Span) *tracepb.ResourceSpans {
			return &tracepb.ResourceSpans{
				Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{
					Key: "service.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: name}},
				}}},
				ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}},
			}
		}
		body, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{
			service("front", span(1, 0, tracepb.Span_SPAN_KIND_SERVER, frontServer), span(2, 1, tracepb.Span_SPAN_KIND_CLIENT, frontClient)),
			service("back", span(3, 2, tracepb.Span_SPAN_KIND_SERVER, backServer)),
		}})
		if err == nil {
			var resp *http.Response
			resp, err = http.Post(otlp+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("exporting spans: %s", resp.Status)
				}
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestRemoteTraces runs trials on an agent that receives spans, from a
// target that exports spans for each request it answers, warm-up
// included. A trial whose spec asks for traces brings back, exactly, the
// hop points the agent computed: those of the measured requests alone,
// timed from the measured result's start. A trial whose spec does not ask
// brings back none, and the agent lets its spans go.
func TestRemoteTraces(t *testing.T) {
	const requests = 20
	otlp := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	target := traceTarget(t, "http://"+otlp)
	dir := t.TempDir()
	spec := func(name, probes string) *spec.Spec {
		return writeSpec(t, dir, fmt.Sprintf(`version: 1
name: %s
variants: [{name: v, target: %q}]
load: {mode: closed, concurrency: [1], requests: %d}
warmup: {duration: 200ms}
%s`, name, target, requests, probes))
	}
	var log lockedBuffer
	a := &Agent{OTLPHTTP: otlp, OTLPGRPC: "127.0.0.1:0", Log: &log}
	url, _, wait := startAgent(t, a)
	ctx := context.Background()
	rm := &Client{Token: testToken, URL: url, Poll: 20 * time.Millisecond, Keep: true}

	s := spec("traces", "probes: {traces: true}\n")
	b, err := NewBundle(s, s.Plan(1)[0], "", 0)
	if err != nil {
		t.Fatal(err)
	}
	run, err := rm.Run(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if res := run.Result; res == nil || res.Requests != requests || res.Codes[200] != requests || run.Warm == nil || run.Warm.Requests == 0 {
		t.Fatalf("Run = %+v; want a warm-up and %d requests answered 200", run, requests)
	}
	if diff := cmp.Diff(a.current().points, run.Points, pointsCmp); diff != "" {
		t.Errorf("points the Client brought back differ from the agent's (-agent +remote):\n%s", diff)
	}
	type series struct{ series, caller, callee string }
	got := map[series][]float64{}
	for _, p := range run.Points {
		if p.Probe != "traces" || p.T < 0 {
			t.Errorf("point %+v; want a traces point at or after the measured start", p)
		}
		k := series{p.Series, p.Labels["caller"], p.Labels["callee"]}
		got[k] = append(got[k], p.Value)
	}
	times := func(d time.Duration) []float64 {
		out := make([]float64, requests)
		for i := range out {
			out[i] = d.Seconds()
		}
		return out
	}
	want := map[series][]float64{
		{"network_seconds", "front", "back"}:   times(frontClient - backServer),
		{"framework_seconds", "", "front"}:     times(frontServer - frontClient),
		{"framework_seconds", "front", "back"}: times(backServer),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hop times of the measured requests, the warm-up's left out (-want +got):\n%s", diff)
	}

	s = spec("no-traces", "")
	if b, err = NewBundle(s, s.Plan(1)[0], "", 0); err != nil {
		t.Fatal(err)
	}
	rm.Keep = false
	run, err = rm.Run(ctx, b)
	if err != nil || run.Result == nil || run.Result.Codes[200] != requests {
		t.Fatalf("Run = %+v, %v; want %d requests answered 200", run, err, requests)
	}
	if run.Points != nil || a.current().points != nil {
		t.Errorf("a spec without traces brought back points %v; want none", run.Points)
	}
	if err := wait(); err != nil {
		t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
	}
	if spans := a.traces.Spans(); len(spans) != 0 {
		t.Errorf("the agent holds %d spans after a trial that asked for no traces; want it to let them go", len(spans))
	}
	if n := strings.Count(log.String(), "receiving spans over OTLP/"); n != 2 {
		t.Errorf("log says %d times where it receives spans; want twice, HTTP and gRPC:\n%s", n, log.String())
	}
}

// TestAgentNoReceiver holds an agent without a trace receiver to running
// a trial whose spec asks for traces, with no points and one line of log
// saying why.
func TestAgentNoReceiver(t *testing.T) {
	s := agentTarget(t, "{mode: closed, concurrency: [1], requests: 5}\nprobes: {traces: true}")
	b, err := NewBundle(s, s.Plan(1)[0], "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	url, _, wait := startAgent(t, &Agent{Log: &log})
	run, err := (&Client{Token: testToken, URL: url, Poll: 20 * time.Millisecond}).Run(context.Background(), b)
	if err != nil || run.Result == nil || run.Result.Requests != 5 || run.Points != nil {
		t.Fatalf("Run = %+v, %v; want 5 requests and no points", run, err)
	}
	if err := wait(); err != nil {
		t.Errorf("the agent's Serve = %v; want nil, told to exit", err)
	}
	const want = "latlab agent: trial 1: its spec asks for traces, but this agent receives no spans: no trace points\n"
	if n := strings.Count(log.String(), "traces"); n != 1 || !strings.Contains(log.String(), want) {
		t.Errorf("log:\n%s\nwant one line about traces, %q", log.String(), want)
	}
}

// TestAgentReceiverBusy holds an agent whose trace receiver cannot listen
// to ending at once, saying so, its listener closed.
func TestAgentReceiverBusy(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = (&Agent{Token: testToken, OTLPGRPC: busy.Addr().String()}).Serve(context.Background(), ln)
	if err == nil || !strings.HasPrefix(err.Error(), "starting the trace receiver: trace receiver (gRPC): listening on "+busy.Addr().String()+": ") {
		t.Errorf("Serve = %v; want the trace receiver's error", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("the agent's listener is still open")
	}
}

// TestRemotePointsRefused holds a Client to refusing points it cannot
// read exactly, naming the part and why: another media type, another
// version of the encoding, and a body that is not one.
func TestRemotePointsRefused(t *testing.T) {
	var res bytes.Buffer
	if err := record.EncodeResult(&res, &record.Result{}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, media, body, want string
	}{
		{"media", "application/json", "{}", `points: of type "application/json", not "application/vnd.latlab.points+json": run the same latlab on both sides`},
		{"version", PointsMedia, `{"version":2}`, "points: decoding points: encoding version 2: this latlab reads version 1; run the same latlab on both sides"},
		{"not JSON", PointsMedia, "LLRW", "points: decoding points: invalid character 'L' looking for beginning of value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/trial":
					writeJSON(w, http.StatusOK, AgentStatus{State: AgentDone})
				case "/result":
					mw := multipart.NewWriter(w)
					w.Header().Set("Content-Type", mw.FormDataContentType())
					for _, p := range []struct{ name, media, body string }{{partMeasure, ResultMedia, res.String()}, {partPoints, tt.media, tt.body}} {
						h := textproto.MIMEHeader{}
						h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
						h.Set("Content-Type", p.media)
						pw, _ := mw.CreatePart(h)
						pw.Write([]byte(p.body))
					}
					mw.Close()
				}
			}))
			defer srv.Close()
			b := &Bundle{Trial: spec.Trial{Variant: "v", Level: record.Level{Rate: 1}, Rep: 1, Position: 1}}
			_, err := (&Client{URL: srv.URL, Poll: 20 * time.Millisecond}).Run(context.Background(), b)
			if want := "agent " + srv.URL + ": GET /result: " + tt.want; err == nil || err.Error() != want {
				t.Errorf("Run = %v\nwant %s", err, want)
			}
		})
	}
}
