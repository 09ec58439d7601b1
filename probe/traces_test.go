package probe

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// tspan is a span of a hand-made trace: ids are one byte, times are
// offsets from the test's base time.
type tspan struct {
	service    string
	kind       tracepb.Span_SpanKind
	id, parent byte
	start, end time.Duration
}

const (
	kindServer   = tracepb.Span_SPAN_KIND_SERVER
	kindClient   = tracepb.Span_SPAN_KIND_CLIENT
	kindInternal = tracepb.Span_SPAN_KIND_INTERNAL
)

var traceBase = time.Unix(1700000000, 0)

// exportRequest builds the OTLP request a set of services would send for
// trace number trace: one ResourceSpans per service, in order of first
// appearance.
func exportRequest(trace byte, spans ...tspan) *coltracepb.ExportTraceServiceRequest {
	req := &coltracepb.ExportTraceServiceRequest{}
	bySvc := map[string]*tracepb.ScopeSpans{}
	for _, s := range spans {
		ss := bySvc[s.service]
		if ss == nil {
			ss = &tracepb.ScopeSpans{}
			bySvc[s.service] = ss
			req.ResourceSpans = append(req.ResourceSpans, &tracepb.ResourceSpans{
				Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{
					Key: "service.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s.service}},
				}}},
				ScopeSpans: []*tracepb.ScopeSpans{ss},
			})
		}
		p := &tracepb.Span{
			TraceId:           []byte{trace, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
			SpanId:            []byte{trace, 0, 0, 0, 0, 0, 0, s.id},
			Name:              s.service + " span",
			Kind:              s.kind,
			StartTimeUnixNano: uint64(traceBase.Add(s.start).UnixNano()),
			EndTimeUnixNano:   uint64(traceBase.Add(s.end).UnixNano()),
		}
		if s.parent != 0 {
			p.ParentSpanId = []byte{trace, 0, 0, 0, 0, 0, 0, s.parent}
		}
		ss.Spans = append(ss.Spans, p)
	}
	return req
}

const ms = time.Millisecond

// chainSpans is root → mid → leaf with known times, shifted by at:
//
//	root server 0–100: busywork 5–25, call mid 30–90 (network 60−55 = 5)
//	mid server 32–87: work 35–45, call leaf 50–80 (network 30−27 = 3)
//	leaf server 51–78: work 55–75
//
// so framework is root 100−80 = 20, mid 55−40 = 15, leaf 27−20 = 7.
func chainSpans(at time.Duration) [][]tspan {
	return [][]tspan{
		{ // leaf first: services export independently
			{"leaf", kindServer, 7, 6, at + 51*ms, at + 78*ms},
			{"leaf", kindInternal, 8, 7, at + 55*ms, at + 75*ms},
		},
		{
			{"mid", kindServer, 4, 3, at + 32*ms, at + 87*ms},
			{"mid", kindInternal, 5, 4, at + 35*ms, at + 45*ms},
			{"mid", kindClient, 6, 4, at + 50*ms, at + 80*ms},
		},
		{
			{"root", kindServer, 1, 0, at, at + 100*ms},
			{"root", kindInternal, 2, 1, at + 5*ms, at + 25*ms},
			{"root", kindClient, 3, 1, at + 30*ms, at + 90*ms},
		},
	}
}

// tracePost sends body to h as a client would and returns the answer.
func tracePost(t *testing.T, h http.Handler, contentType, encoding string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/traces", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// tracePostSpans sends spans of trace as one protobuf request and checks that
// all were accepted.
func tracePostSpans(t *testing.T, h http.Handler, trace byte, spans []tspan) {
	t.Helper()
	body, err := proto.Marshal(exportRequest(trace, spans...))
	if err != nil {
		t.Fatal(err)
	}
	w := tracePost(t, h, "application/x-protobuf", "", body)
	if w.Code != http.StatusOK {
		t.Fatalf("POST: %d %q", w.Code, w.Body.Bytes())
	}
	var resp coltracepb.ExportTraceServiceResponse
	if err := proto.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.GetPartialSuccess().GetRejectedSpans() != 0 {
		t.Fatalf("answer %v (%v): want every span accepted", &resp, err)
	}
}

func hopDurations(ds ...time.Duration) Durations {
	if len(ds) == 0 {
		return Durations{}
	}
	return durationsOf(func() []hopSample {
		s := make([]hopSample, len(ds))
		for i, d := range ds {
			s[i].d = d
		}
		return s
	}())
}

func TestTraceHopsChain(t *testing.T) {
	r := NewTraceReceiver()
	for trace, at := range []time.Duration{0, time.Second} {
		for _, spans := range chainSpans(at) {
			tracePostSpans(t, r, byte(trace+1), spans)
		}
	}
	// The retry of an export counts once.
	tracePostSpans(t, r, 1, chainSpans(0)[0])

	want := []Hop{
		{Caller: "", Callee: "root", Count: 2, Framework: hopDurations(20*ms, 20*ms)},
		{Caller: "mid", Callee: "leaf", Count: 2, Network: hopDurations(3*ms, 3*ms), Framework: hopDurations(7*ms, 7*ms)},
		{Caller: "root", Callee: "mid", Count: 2, Network: hopDurations(5*ms, 5*ms), Framework: hopDurations(15*ms, 15*ms)},
	}
	if diff := cmp.Diff(want, r.Hops()); diff != "" {
		t.Errorf("hops (-want +got):\n%s", diff)
	}
	if got := len(r.Spans()); got != 18 {
		t.Errorf("%d spans kept, want 18 (16 plus a retry of 2)", got)
	}

	// The second trace only: it starts a second after the base.
	if diff := cmp.Diff([]Hop{
		{Caller: "", Callee: "root", Count: 1, Framework: hopDurations(20 * ms)},
		{Caller: "mid", Callee: "leaf", Count: 1, Network: hopDurations(3 * ms), Framework: hopDurations(7 * ms)},
		{Caller: "root", Callee: "mid", Count: 1, Network: hopDurations(5 * ms), Framework: hopDurations(15 * ms)},
	}, r.HopsBetween(traceBase.Add(500*ms), traceBase.Add(2*time.Second))); diff != "" {
		t.Errorf("hops of the second trace (-want +got):\n%s", diff)
	}

	leafLabels := map[string]string{"caller": "mid", "callee": "leaf"}
	midLabels := map[string]string{"caller": "root", "callee": "mid"}
	rootLabels := map[string]string{"caller": "", "callee": "root"}
	p := func(series string, labels map[string]string, at time.Duration, d time.Duration) Point {
		return Point{Probe: "traces", Series: series, Labels: labels, T: at, Value: d.Seconds()}
	}
	wantPoints := []Point{
		p("framework_seconds", rootLabels, 500*ms, 20*ms),
		p("network_seconds", midLabels, 530*ms, 5*ms),
		p("framework_seconds", midLabels, 532*ms, 15*ms),
		p("network_seconds", leafLabels, 550*ms, 3*ms),
		p("framework_seconds", leafLabels, 551*ms, 7*ms),
	}
	if diff := cmp.Diff(wantPoints, r.Points(traceBase.Add(500*ms))); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	if got := len(r.PointsBetween(traceBase, traceBase.Add(500*ms))); got != 5 {
		t.Errorf("PointsBetween the first half second: %d points, want the first trace's 5", got)
	}

	r.Forget(traceBase.Add(500 * ms))
	if got := r.Hops(); len(got) != 3 || got[0].Count != 1 {
		t.Errorf("after Forget, hops %+v: want the second trace's only", got)
	}
}

// chainPoints are the points of one chainSpans(0) trace read from the
// trace's start.
func chainPoints() []Point {
	leafLabels := map[string]string{"caller": "mid", "callee": "leaf"}
	midLabels := map[string]string{"caller": "root", "callee": "mid"}
	rootLabels := map[string]string{"caller": "", "callee": "root"}
	p := func(series string, labels map[string]string, at time.Duration, d time.Duration) Point {
		return Point{Probe: "traces", Series: series, Labels: labels, T: at, Value: d.Seconds()}
	}
	return []Point{
		p("framework_seconds", rootLabels, 0, 20*ms),
		p("network_seconds", midLabels, 30*ms, 5*ms),
		p("framework_seconds", midLabels, 32*ms, 15*ms),
		p("network_seconds", leafLabels, 50*ms, 3*ms),
		p("framework_seconds", leafLabels, 51*ms, 7*ms),
	}
}

// TestTraceHopsParentLater sends a trace's children before its root, as
// services exporting on their own schedules do, and reads its points in
// between: the reading waits for the root and gives every hop its caller.
func TestTraceHopsParentLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewTraceReceiver()
		batches := chainSpans(0)
		tracePostSpans(t, r, 1, batches[0]) // leaf
		tracePostSpans(t, r, 1, batches[1]) // mid, whose parent is root's client span
		begin := time.Now()
		got := make(chan []Point)
		go func() { got <- r.PointsBetween(traceBase, time.Time{}) }()
		synctest.Wait() // the reading waits for mid's parent
		select {
		case p := <-got:
			t.Fatalf("points read before the parent came: %v", p)
		default:
		}
		time.Sleep(200 * time.Millisecond) // the root's service exports later
		tracePostSpans(t, r, 1, batches[2])
		if diff := cmp.Diff(chainPoints(), <-got); diff != "" {
			t.Errorf("points (-want +got):\n%s", diff)
		}
		if waited := time.Since(begin); waited != 200*time.Millisecond {
			t.Errorf("waited %s for the parent, want until it came (200ms)", waited)
		}
	})
}

// TestTraceHopsOrphans reads a trace whose root never arrives, beside a
// whole one: the orphan is left out of every hop and counted, after
// waiting ParentWait for its parent.
func TestTraceHopsOrphans(t *testing.T) {
	tests := []struct {
		name string
		wait time.Duration
		want time.Duration // how long the reading waits
	}{
		{"default wait", 0, defaultParentWait},
		{"short wait", 300 * ms, 300 * ms},
		{"no wait", -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &TraceReceiver{ParentWait: tt.wait}
				for _, spans := range chainSpans(0) {
					tracePostSpans(t, r, 1, spans)
				}
				batches := chainSpans(time.Second)
				tracePostSpans(t, r, 2, batches[0])
				tracePostSpans(t, r, 2, batches[1]) // root's never comes
				begin := time.Now()
				points := r.PointsBetween(traceBase.Add(time.Second), time.Time{})
				if waited := time.Since(begin); waited != tt.want {
					t.Errorf("waited %s for the parent, want %s", waited, tt.want)
				}
				leafLabels := map[string]string{"caller": "mid", "callee": "leaf"}
				want := []Point{
					{Probe: "traces", Series: "orphan_spans_total", Labels: map[string]string{"callee": "mid"}, T: 32 * ms, Value: 1},
					{Probe: "traces", Series: "network_seconds", Labels: leafLabels, T: 50 * ms, Value: (3 * ms).Seconds()},
					{Probe: "traces", Series: "framework_seconds", Labels: leafLabels, T: 51 * ms, Value: (7 * ms).Seconds()},
				}
				if diff := cmp.Diff(want, points); diff != "" {
					t.Errorf("points of the trace without its root (-want +got):\n%s", diff)
				}
				// Both traces: the whole one's entry still comes from the
				// load generator; mid's orphan comes from no one.
				wantHops := []Hop{
					{Caller: "", Callee: "root", Count: 1, Framework: hopDurations(20 * ms)},
					{Caller: "mid", Callee: "leaf", Count: 2, Network: hopDurations(3*ms, 3*ms), Framework: hopDurations(7*ms, 7*ms)},
					{Caller: "root", Callee: "mid", Count: 1, Network: hopDurations(5 * ms), Framework: hopDurations(15 * ms)},
				}
				if diff := cmp.Diff(wantHops, r.Hops()); diff != "" {
					t.Errorf("hops (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestTraceHopsObserverRoutes sends the root spans a graph node makes for
// latlab's own scrapes, profiles and readiness checks: they are no hop.
func TestTraceHopsObserverRoutes(t *testing.T) {
	r := NewTraceReceiver()
	for trace, route := range []string{"/metrics", "/debug/pprof/", "/healthz", "/busywork"} {
		req := exportRequest(byte(trace+1), tspan{"leaf", kindServer, 1, 0, 0, 2 * ms})
		req.ResourceSpans[0].ScopeSpans[0].Spans[0].Attributes = []*commonpb.KeyValue{{
			Key: "http.route", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: route}},
		}}
		body, err := proto.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if w := tracePost(t, r, "application/x-protobuf", "", body); w.Code != http.StatusOK {
			t.Fatalf("POST: %d %q", w.Code, w.Body.Bytes())
		}
	}
	want := []Hop{{Caller: "", Callee: "leaf", Count: 1, Framework: hopDurations(2 * ms)}}
	if diff := cmp.Diff(want, r.Hops()); diff != "" {
		t.Errorf("hops (-want +got):\n%s", diff)
	}
	if got := r.Spans()[0].Route; got != "/metrics" {
		t.Errorf("first span's route %q, want /metrics", got)
	}
}

func TestTraceHopsParallelAndClamped(t *testing.T) {
	r := NewTraceReceiver()
	tracePostSpans(t, r, 1, []tspan{
		// Calls in parallel: 10–50 and 20–60 cover 50 ms of 100.
		{"fan", kindServer, 1, 0, 0, 100 * ms},
		{"fan", kindClient, 2, 1, 10 * ms, 50 * ms},
		{"fan", kindClient, 3, 1, 20 * ms, 60 * ms},
		// A client span whose server is in the same service is no hop.
		{"fan", kindServer, 4, 3, 25 * ms, 45 * ms},
		// Work that outlasts its server span (clock trouble) clamps to 0.
		{"odd", kindServer, 5, 2, 12 * ms, 40 * ms},
		{"odd", kindInternal, 6, 5, 11 * ms, 41 * ms},
	})
	want := []Hop{
		{Caller: "", Callee: "fan", Count: 1, Framework: hopDurations(50 * ms)},
		{Caller: "fan", Callee: "fan", Count: 1, Framework: hopDurations(20 * ms)},
		{Caller: "fan", Callee: "odd", Count: 1, Network: hopDurations(12 * ms), Framework: hopDurations(0)},
	}
	if diff := cmp.Diff(want, r.Hops()); diff != "" {
		t.Errorf("hops (-want +got):\n%s", diff)
	}
}

func TestTraceHopsCovered(t *testing.T) {
	iv := func(a, b time.Duration) [2]time.Time { return [2]time.Time{traceBase.Add(a), traceBase.Add(b)} }
	tests := []struct {
		name      string
		intervals [][2]time.Time
		want      time.Duration
	}{
		{"none", nil, 0},
		{"sequential", [][2]time.Time{iv(30, 40), iv(10, 20)}, 20},
		{"overlapping", [][2]time.Time{iv(10, 30), iv(20, 40)}, 30},
		{"nested", [][2]time.Time{iv(10, 60), iv(20, 30)}, 50},
		{"touching", [][2]time.Time{iv(10, 20), iv(20, 30)}, 20},
		{"clipped", [][2]time.Time{iv(-10, 10), iv(90, 120)}, 20},
		{"outside", [][2]time.Time{iv(-20, -10), iv(100, 120)}, 0},
		{"empty", [][2]time.Time{iv(50, 50)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := covered(tt.intervals, traceBase, traceBase.Add(100)); got != tt.want {
				t.Errorf("covered = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestHopDurations(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	got := hopDurations(ds...)
	if got.P50 != 50 || got.P90 != 90 || got.P99 != 99 || got.Max != 100 || got.Samples[0] != 1 {
		t.Errorf("1…100: p50 %d p90 %d p99 %d max %d first %d; want 50 90 99 100 1", got.P50, got.P90, got.P99, got.Max, got.Samples[0])
	}
	if got := hopDurations(3, 1, 2); got.P50 != 2 || got.P90 != 3 || got.P99 != 3 {
		t.Errorf("three samples: %+v, want p50 2 and p90, p99 the largest", got)
	}
	if got := hopDurations(); got.P99 != 0 || got.Samples != nil {
		t.Errorf("no samples: %+v, want zeros", got)
	}
}

func TestTraceReceiverGzip(t *testing.T) {
	r := NewTraceReceiver()
	body, err := proto.Marshal(exportRequest(1, chainSpans(0)[2]...))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if w := tracePost(t, r, "application/x-protobuf", "gzip", z.Bytes()); w.Code != http.StatusOK {
		t.Fatalf("gzip POST: %d %q", w.Code, w.Body.Bytes())
	}
	if got := len(r.Spans()); got != 3 {
		t.Errorf("%d spans kept from a gzip body, want 3", got)
	}
}
