package probe

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// traceJSON is an OTLP/JSON export as the specification writes it: ids in
// hex, kinds as numbers, times as strings, an unknown field to ignore.
const traceJSON = `{"resourceSpans":[{
 "resource":{"attributes":[{"key":"service.name","value":{"stringValue":"root"}}]},
 "scopeSpans":[{"scope":{"name":"t"},"spans":[
  {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"GET /",
   "kind":2,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000010000000","futureField":1},
  {"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"eee19b7ec3c1b175","parentSpanId":"eee19b7ec3c1b174",
   "name":"busywork","kind":"SPAN_KIND_INTERNAL","startTimeUnixNano":1700000000001000000,"endTimeUnixNano":"1700000000009000000"}
 ]}]}]}`

func TestTraceReceiverJSON(t *testing.T) {
	r := NewTraceReceiver()
	before := time.Now()
	w := tracePost(t, r, "application/json; charset=utf-8", "", []byte(traceJSON))
	after := time.Now()
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("POST: %d %s %q", w.Code, w.Header().Get("Content-Type"), w.Body.Bytes())
	}
	var resp coltracepb.ExportTraceServiceResponse
	if err := protojson.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.PartialSuccess != nil {
		t.Errorf("answer %q (%v): want a full success in JSON", w.Body.Bytes(), err)
	}
	trace := [16]byte{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c}
	want := []Span{
		{TraceID: trace, SpanID: [8]byte{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74}, Service: "root", Name: "GET /",
			Kind: SpanKindServer, Start: time.Unix(1700000000, 0), End: time.Unix(1700000000, 10e6)},
		{TraceID: trace, SpanID: [8]byte{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x75}, ParentID: [8]byte{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74},
			Service: "root", Name: "busywork", Kind: SpanKindInternal, Start: time.Unix(1700000000, 1e6), End: time.Unix(1700000000, 9e6)},
	}
	got := r.Spans()
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Span{}, "Received")); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	for _, s := range got {
		if s.Received.Before(before) || s.Received.After(after) {
			t.Errorf("span %s received at %s, want during the POST (%s to %s)", s.Name, s.Received, before, after)
		}
	}
	if diff := cmp.Diff([]Hop{{Callee: "root", Count: 1, Framework: hopDurations(2 * ms)}}, r.Hops()); diff != "" {
		t.Errorf("hops (-want +got):\n%s", diff)
	}
}

func traceGzip(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

func TestTraceReceiverRefuses(t *testing.T) {
	good, err := proto.Marshal(exportRequest(1, chainSpans(0)[2]...))
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte{0}, 2048)
	tests := []struct {
		name, method, path, contentType, encoding string
		body                                      []byte
		want                                      int
		message                                   string
	}{
		{"garbage protobuf", "POST", "/v1/traces", "application/x-protobuf", "", []byte("\xff\xff\xff garbage"), 400, "decoding traces"},
		{"garbage json", "POST", "/v1/traces", "application/json", "", []byte("{not json"), 400, "decoding traces"},
		{"json of the wrong shape", "POST", "/v1/traces", "application/json", "", []byte(`{"resourceSpans":7}`), 400, "decoding traces"},
		{"truncated gzip", "POST", "/v1/traces", "application/x-protobuf", "gzip", traceGzip(t, good)[:20], 400, "reading body"},
		{"not gzip", "POST", "/v1/traces", "application/x-protobuf", "gzip", good, 400, "gzip header"},
		{"oversize", "POST", "/v1/traces", "application/x-protobuf", "", big, 413, "limit of 1024 bytes"},
		{"oversize once gunzipped", "POST", "/v1/traces", "application/x-protobuf", "gzip", traceGzip(t, big), 413, "limit of 1024 bytes"},
		{"unknown encoding", "POST", "/v1/traces", "application/x-protobuf", "br", good, 415, "content encoding"},
		{"unknown type", "POST", "/v1/traces", "text/plain", "", good, 415, "content type"},
		{"GET", "GET", "/v1/traces", "application/x-protobuf", "", nil, 405, "POSTed"},
		{"wrong path", "POST", "/v1/metrics", "application/x-protobuf", "", good, 404, "/v1/traces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &TraceReceiver{MaxBodyBytes: 1024}
			req := httptest.NewRequest(tt.method, tt.path, bytes.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.contentType)
			if tt.encoding != "" {
				req.Header.Set("Content-Encoding", tt.encoding)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tt.want {
				t.Errorf("status %d, want %d (%q)", w.Code, tt.want, w.Body.Bytes())
			}
			var st statuspb.Status
			unmarshal := proto.Unmarshal
			if tt.contentType == "application/json" {
				unmarshal = protojson.Unmarshal
			}
			if err := unmarshal(w.Body.Bytes(), &st); err != nil || !strings.Contains(st.GetMessage(), tt.message) {
				t.Errorf("answer %q (%v): want a Status saying %q", w.Body.Bytes(), err, tt.message)
			}
			if n := len(r.Spans()); n != 0 {
				t.Errorf("%d spans kept from a refused request", n)
			}
		})
	}
}

func TestTraceReceiverPartialSuccess(t *testing.T) {
	r := &TraceReceiver{MaxSpans: 4}
	req := exportRequest(1, chainSpans(0)[1]...) // 3 valid spans
	bad := exportRequest(2, chainSpans(0)[2]...) // 3 more, made invalid
	bad.ResourceSpans[0].ScopeSpans[0].Spans[0].TraceId = make([]byte, 16)
	bad.ResourceSpans[0].ScopeSpans[0].Spans[1].SpanId = []byte{1}
	bad.ResourceSpans[0].ScopeSpans[0].Spans[2].EndTimeUnixNano = 1
	req.ResourceSpans = append(req.ResourceSpans, bad.ResourceSpans...)
	body, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	check := func(wantRejected int64) {
		t.Helper()
		w := tracePost(t, r, "application/x-protobuf", "", body)
		var resp coltracepb.ExportTraceServiceResponse
		if err := proto.Unmarshal(w.Body.Bytes(), &resp); err != nil || w.Code != http.StatusOK {
			t.Fatalf("POST: %d %q (%v)", w.Code, w.Body.Bytes(), err)
		}
		if got := resp.GetPartialSuccess().GetRejectedSpans(); got != wantRejected {
			t.Errorf("rejected %d spans, want %d (%q)", got, wantRejected, resp.GetPartialSuccess().GetErrorMessage())
		}
	}
	check(3) // 3 invalid
	check(5) // 3 invalid, 2 over MaxSpans
	if got, want := len(r.Spans()), 4; got != want {
		t.Errorf("%d spans kept, want %d", got, want)
	}
	if got := r.Rejected(); got != 8 {
		t.Errorf("Rejected() = %d, want 8", got)
	}
}

func TestTraceReceiverConcurrent(t *testing.T) {
	r := NewTraceReceiver()
	srv := httptest.NewServer(r)
	defer srv.Close()
	const posters, traces = 12, 20 // trace ids are one byte
	var wg sync.WaitGroup
	errs := make(chan error, posters*traces)
	for p := range posters {
		wg.Go(func() {
			for i := range traces {
				trace := byte(p*traces + i)
				for _, spans := range chainSpans(time.Duration(trace) * time.Second) {
					body, err := proto.Marshal(exportRequest(trace, spans...))
					if err != nil {
						errs <- err
						return
					}
					resp, err := http.Post(srv.URL+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
					if err != nil {
						errs <- err
						return
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						errs <- fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				// Read while others write.
				_ = r.Hops()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	const n = posters * traces
	for _, h := range r.Hops() {
		if h.Count != n || h.Framework.P99 == 0 {
			t.Errorf("hop %s→%s: count %d, p99 %s; want %d calls", h.Caller, h.Callee, h.Count, h.Framework.P99, n)
		}
	}
	if got := len(r.PointsBetween(traceBase, time.Time{})); got != 5*n {
		t.Errorf("%d points, want %d", got, 5*n)
	}
}

func TestTraceReceiverListen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := NewTraceReceiver()
	base, err := r.Listen(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("Listen gave %s, want a 127.0.0.1 URL", base)
	}
	body, _ := proto.Marshal(exportRequest(1, chainSpans(0)[2]...))
	resp, err := http.Post(base+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(r.Spans()) != 3 {
		t.Errorf("status %d and %d spans, want 200 and 3", resp.StatusCode, len(r.Spans()))
	}
	cancel()
	client := &http.Client{Transport: &http.Transport{}} // no idle connection to the old server
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := client.Post(base+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("the receiver still serves after its context ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := r.Listen(context.Background(), "256.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "256.0.0.1:0") {
		t.Errorf("Listen on a bad address: %v, want an error naming it", err)
	}
}
