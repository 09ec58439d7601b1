package probe

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Listen serves the receiver on addr ("" means 127.0.0.1:0, a free port)
// until ctx ends, and returns its base URL, such as http://127.0.0.1:4318,
// for an OTLP exporter's endpoint (the exporter appends /v1/traces). When
// ctx ends, requests in flight get five seconds to finish.
func (r *TraceReceiver) Listen(ctx context.Context, addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("trace receiver: listening on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           r,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() { _ = srv.Serve(ln) }() // returns ErrServerClosed after Shutdown
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			_ = srv.Close()
		}
	}()
	return "http://" + ln.Addr().String(), nil
}

// ServeHTTP implements OTLP/HTTP for traces at /v1/traces: it answers 200
// with an ExportTraceServiceResponse (naming refused spans, if any, as a
// partial success), 400 for a body that does not decode, 413 for one over
// MaxBodyBytes, 415 for an unknown content type or encoding, and a
// google.rpc.Status with the reason in every error answer.
func (r *TraceReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	asJSON := ct == "application/json"
	switch {
	case req.URL.Path != "/v1/traces":
		writeOTLP(w, asJSON, http.StatusNotFound, &statuspb.Status{Message: "no such path; traces go to /v1/traces"})
		return
	case req.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		writeOTLP(w, asJSON, http.StatusMethodNotAllowed, &statuspb.Status{Message: "traces are POSTed"})
		return
	case ct != "application/x-protobuf" && ct != "application/json":
		writeOTLP(w, false, http.StatusUnsupportedMediaType,
			&statuspb.Status{Message: fmt.Sprintf("content type %q: want application/x-protobuf or application/json", ct)})
		return
	}
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer putBodyBuffer(buf)
	if code, err := r.readBody(w, req, buf); err != nil {
		writeOTLP(w, asJSON, code, &statuspb.Status{Message: err.Error()})
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	var err error
	if asJSON {
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(buf.Bytes(), &msg)
	} else {
		err = proto.Unmarshal(buf.Bytes(), &msg)
	}
	if err != nil {
		writeOTLP(w, asJSON, http.StatusBadRequest, &statuspb.Status{Message: "decoding traces: " + err.Error()})
		return
	}
	spans, invalid := spansOf(&msg, asJSON)
	resp := r.answer(spans, invalid)
	writeOTLP(w, asJSON, http.StatusOK, resp)
}

// answer keeps what it can of spans, invalid more having been left out,
// and returns the export's answer: a partial success naming the spans
// refused, if any.
func (r *TraceReceiver) answer(spans []Span, invalid int) *coltracepb.ExportTraceServiceResponse {
	refused := invalid + len(spans) - r.add(spans, invalid)
	resp := &coltracepb.ExportTraceServiceResponse{}
	if refused > 0 {
		resp.PartialSuccess = &coltracepb.ExportTracePartialSuccess{
			RejectedSpans: int64(refused),
			ErrorMessage:  fmt.Sprintf("%d spans invalid, %d over the receiver's limit of %d", invalid, refused-invalid, r.maxSpans()),
		}
	}
	return resp
}

// maxBody is MaxBodyBytes or its default.
func (r *TraceReceiver) maxBody() int64 {
	if r.MaxBodyBytes <= 0 {
		return defaultMaxTraceBody
	}
	return r.MaxBodyBytes
}

// bodyBuffers holds the buffers request bodies are read into: a receiver
// runs beside the load generator, so it should allocate little.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putBodyBuffer(b *bytes.Buffer) {
	if b.Cap() > 4<<20 {
		return // let a rare huge body's buffer go
	}
	b.Reset()
	bodyBuffers.Put(b)
}

// readBody reads req's body, gunzipped if need be, into buf. On failure it
// returns the status to answer.
func (r *TraceReceiver) readBody(w http.ResponseWriter, req *http.Request, buf *bytes.Buffer) (int, error) {
	limit := r.maxBody()
	tooLarge := fmt.Errorf("body over the receiver's limit of %d bytes", limit)
	if req.ContentLength > limit {
		return http.StatusRequestEntityTooLarge, tooLarge
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, limit)
	fail := func(step string, err error) (int, error) {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return http.StatusRequestEntityTooLarge, tooLarge
		}
		return http.StatusBadRequest, fmt.Errorf("%s: %w", step, err)
	}
	switch enc := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return fail("reading gzip header", err)
		}
		defer zr.Close()
		body = zr
	default:
		return http.StatusUnsupportedMediaType, fmt.Errorf("content encoding %q: want gzip or none", enc)
	}
	// One byte over the limit tells a body at the limit from a larger one.
	n, err := buf.ReadFrom(io.LimitReader(body, limit+1))
	if err != nil {
		return fail("reading body", err)
	}
	if n > limit {
		return http.StatusRequestEntityTooLarge, tooLarge
	}
	return 0, nil
}

// writeOTLP answers with code and m, encoded as the request was.
func writeOTLP(w http.ResponseWriter, asJSON bool, code int, m proto.Message) {
	ct, marshal := "application/x-protobuf", proto.Marshal
	if asJSON {
		ct, marshal = "application/json", protojson.Marshal
	}
	b, err := marshal(m)
	if err != nil {
		// Our own small messages always encode; answer the code regardless.
		b = nil
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// spansOf converts the spans of msg, counting those it cannot use: ids of
// the wrong length, an all-zero trace id, or an end before the start.
// OTLP/JSON writes ids in hex, which protojson read as base64; fromJSON
// says to convert them back.
func spansOf(msg *coltracepb.ExportTraceServiceRequest, fromJSON bool) (spans []Span, invalid int) {
	for _, rs := range msg.GetResourceSpans() {
		service := "unknown_service"
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" && kv.GetValue().GetStringValue() != "" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				if fromJSON {
					s.TraceId = hexID(s.TraceId, 16)
					s.SpanId = hexID(s.SpanId, 8)
					s.ParentSpanId = hexID(s.ParentSpanId, 8)
				}
				sp, ok := spanOf(s, service)
				if !ok {
					invalid++
					continue
				}
				spans = append(spans, sp)
			}
		}
	}
	return spans, invalid
}

func spanOf(s *tracepb.Span, service string) (Span, bool) {
	sp := Span{Service: service, Name: s.GetName()}
	for _, kv := range s.GetAttributes() {
		if kv.GetKey() == "http.route" {
			sp.Route = kv.GetValue().GetStringValue()
		}
	}
	start, end, kind := s.GetStartTimeUnixNano(), s.GetEndTimeUnixNano(), s.GetKind()
	if len(s.TraceId) != 16 || len(s.SpanId) != 8 || (len(s.ParentSpanId) != 0 && len(s.ParentSpanId) != 8) ||
		end < start || end > math.MaxInt64 || kind < 0 || kind > tracepb.Span_SPAN_KIND_CONSUMER {
		return sp, false
	}
	sp.Kind = SpanKind(kind)
	copy(sp.TraceID[:], s.TraceId)
	copy(sp.SpanID[:], s.SpanId)
	copy(sp.ParentID[:], s.ParentSpanId)
	if sp.TraceID == [16]byte{} {
		return sp, false
	}
	sp.Start, sp.End = time.Unix(0, int64(start)), time.Unix(0, int64(end))
	return sp, true
}

// hexID undoes protojson's base64 reading of an n-byte id written in hex:
// 2n hex digits read as base64 make 3n/2 bytes, whose base64 text is the
// hex again. Ids of any other length are returned as they are.
func hexID(b []byte, n int) []byte {
	if len(b) != n*3/2 {
		return b
	}
	id, err := hex.DecodeString(base64.StdEncoding.EncodeToString(b))
	if err != nil {
		return b
	}
	return id
}
