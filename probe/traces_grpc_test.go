package probe

import (
	"context"
	"math"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// grpcExport sends spans of service svc to the OTLP/gRPC receiver at addr.
func grpcExport(t *testing.T, addr, svc string, spans ...*tracepb.Span) *coltracepb.ExportTraceServiceResponse {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := coltracepb.NewTraceServiceClient(conn).Export(ctx, &coltracepb.ExportTraceServiceRequest{
		ResourceSpans: []*tracepb.ResourceSpans{{
			Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{Key: "service.name",
				Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: svc}}}}},
			ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}},
		}},
	})
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return resp
}

func grpcSpan(id, parent byte, name string, start, end time.Duration) *tracepb.Span {
	s := &tracepb.Span{
		TraceId: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, SpanId: []byte{0, 0, 0, 0, 0, 0, 0, id},
		Name: name, Kind: tracepb.Span_SPAN_KIND_INTERNAL,
		StartTimeUnixNano: uint64(1_700_000_000e9 + start), EndTimeUnixNano: uint64(1_700_000_000e9 + end),
	}
	if parent != 0 {
		s.ParentSpanId = []byte{0, 0, 0, 0, 0, 0, 0, parent}
	}
	return s
}

// The OTLP/gRPC receiver keeps what the OTLP/HTTP one would, under the
// same limit, and names the spans it refused.
func TestTraceReceiverGRPC(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &TraceReceiver{MaxSpans: 2}
	addr, err := r.ListenGRPC(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	resp := grpcExport(t, addr, "apiserver", grpcSpan(1, 0, "audit", 0, 9*ms), grpcSpan(2, 1, "priorityandfairness", ms, 8*ms))
	if resp.GetPartialSuccess() != nil {
		t.Errorf("first export: %v, want a full success", resp)
	}
	got := r.Spans()
	if len(got) != 2 || got[0].Service != "apiserver" || got[1].Name != "priorityandfairness" || got[1].ParentID[7] != 1 ||
		got[1].Kind != SpanKindInternal || got[1].Duration() != 7*ms {
		t.Errorf("spans %+v", got)
	}
	resp = grpcExport(t, addr, "apiserver", grpcSpan(3, 2, "authorization", 2*ms, 7*ms),
		&tracepb.Span{Name: "no ids"})
	if p := resp.GetPartialSuccess(); p.GetRejectedSpans() != 2 {
		t.Errorf("second export over the limit, with an invalid span: %v, want 2 rejected", resp)
	}
	if r.Rejected() != 2 || len(r.Spans()) != 2 {
		t.Errorf("rejected %d, kept %d; want 2 and 2", r.Rejected(), len(r.Spans()))
	}
}

// Nested filter spans, as kube-apiserver sends them over OTLP/gRPC, give
// each filter's own time: from its span's start to the next span's.
func TestTraceFilters(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &TraceReceiver{ParentWait: -1}
	addr, err := r.ListenGRPC(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	us := time.Microsecond
	grpcExport(t, addr, "apiserver",
		grpcSpan(5, 4, "Create", 600*us, 650*us), // no children: not a filter
		grpcSpan(4, 3, "authorization", 500*us, 700*us),
		grpcSpan(3, 2, "priorityandfairness", 200*us, 800*us),
		grpcSpan(2, 1, "impersonation", 100*us, 850*us),
		grpcSpan(1, 0, "audit", 0, 900*us))
	want := map[string]time.Duration{"audit": 100 * us, "impersonation": 100 * us, "priorityandfairness": 300 * us, "authorization": 100 * us}
	origin := time.Unix(1_700_000_000, 0)
	got := map[string]time.Duration{}
	for _, p := range r.PointsBetween(origin, time.Time{}) {
		if p.Series != "filter_seconds" {
			continue
		}
		if p.Labels["service"] != "apiserver" {
			t.Errorf("point %+v: want service apiserver", p)
		}
		if _, dup := got[p.Labels["span"]]; dup {
			t.Errorf("two points for %s", p.Labels["span"])
		}
		got[p.Labels["span"]] = time.Duration(math.Round(p.Value * 1e9))
	}
	if len(got) != len(want) {
		t.Errorf("filters %v, want %v", got, want)
	}
	for name, d := range want {
		if got[name] != d {
			t.Errorf("filter %s: %v, want %v", name, got[name], d)
		}
	}
}
