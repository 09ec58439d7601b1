package graph

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/zipkin" //nolint:staticcheck // deprecated for 2027; testapi setups still collect with Zipkin
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// durationBuckets are the classic buckets of every latency histogram, in
// seconds: 10 µs to 60 s in 1-2.5-5 steps. Each is also a native histogram
// for scrapers that read protobuf (latlab's probe does): bucket factor
// 1.03, which client_golang makes 2^(1/32), buckets 2.2% wide, at most 320
// of them before it halves the resolution.
var durationBuckets = []float64{
	10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6,
	1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
}

// ratioBuckets are the buckets of latlab_work_ratio: measured ÷ requested,
// fine just above 1 where calibrated work should land. They are finer there
// than native buckets would be, so this histogram is classic only.
var ratioBuckets = []float64{
	0.5, 0.9, 0.99, 1, 1.001, 1.002, 1.005, 1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 2, 5, 10,
}

// metrics are a node's Prometheus collectors, curried with its service name.
type metrics struct {
	server   prometheus.ObserverVec // route, code
	client   prometheus.ObserverVec // peer, route, code
	work     prometheus.ObserverVec // kind
	ratio    prometheus.ObserverVec // kind
	inFlight prometheus.Gauge
	refused  prometheus.Counter // connections over MaxConns
}

func histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:                           name,
		Help:                           help,
		Buckets:                        buckets,
		NativeHistogramBucketFactor:    1.03,
		NativeHistogramMaxBucketNumber: 320,
	}, labels)
}

// newMetrics registers the node's collectors in reg.
func newMetrics(reg prometheus.Registerer, service string) (*metrics, error) {
	server := histogram("latlab_server_request_duration_seconds",
		"Time from a request's arrival at the node to the end of its response, filters included.",
		durationBuckets, "service", "route", "code")
	client := histogram("latlab_client_request_duration_seconds",
		"Time of a downstream call from sending it to reading its whole response.",
		durationBuckets, "service", "peer", "route", "code")
	work := histogram("latlab_work_duration_seconds",
		"Measured wall time of one piece of work: busywork, prime, sleep, fork, stress or payload.",
		durationBuckets, "service", "kind")
	ratio := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "latlab_work_ratio",
		Help:    "Measured over requested duration of timed work (busywork, sleep); 1 is exact.",
		Buckets: ratioBuckets,
	}, []string{"service", "kind"})
	inFlight := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "latlab_server_in_flight_requests",
		Help: "Requests the node is serving now.",
	}, []string{"service"})
	refused := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "latlab_server_connections_refused_total",
		Help: "Connections the node closed as it accepted them, with MaxConns open already.",
	}, []string{"service"})
	for _, c := range []prometheus.Collector{server, client, work, ratio, inFlight, refused} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering metrics: %w", err)
		}
	}
	svc := prometheus.Labels{"service": service}
	return &metrics{
		server:   server.MustCurryWith(svc),
		client:   client.MustCurryWith(svc),
		work:     work.MustCurryWith(svc),
		ratio:    ratio.MustCurryWith(svc),
		inFlight: inFlight.WithLabelValues(service),
		refused:  refused.WithLabelValues(service),
	}, nil
}

// routeLabel maps a request path to one of a fixed set of route labels, so
// that no client can grow the metrics' cardinality.
func routeLabel(path string) string {
	switch path {
	case "/", "/busywork", "/prime", "/fork", "/stress-ng", "/sleep",
		"/load", "/load-status", "/objects", "/healthz", "/metrics", "/admission":
		return path
	}
	switch {
	case len(path) > len("/objects/") && path[:len("/objects/")] == "/objects/":
		return "/objects/{name}"
	case len(path) >= len("/debug/pprof/") && path[:len("/debug/pprof/")] == "/debug/pprof/":
		return "/debug/pprof/"
	}
	return "other"
}

// codeLabels holds the text of status codes 0 to 599 so that labelling a
// request does not allocate.
var codeLabels = func() []string {
	s := make([]string, 600)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func codeLabel(code int) string {
	if code >= 0 && code < len(codeLabels) {
		return codeLabels[code]
	}
	return "other"
}

// tracing is a node's OpenTelemetry state. Its tracer is a no-op when no
// exporter is configured.
type tracing struct {
	on       bool
	provider *sdktrace.TracerProvider // nil when off
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
}

// newTracing builds the node's own tracer provider (never the global one)
// exporting to the configured endpoints.
func newTracing(ctx context.Context, cfg *NodeConfig) (*tracing, error) {
	t := &tracing{tracer: noop.NewTracerProvider().Tracer("latlab"), prop: propagation.TraceContext{}}
	if cfg.OTLPEndpoint == "" && cfg.ZipkinEndpoint == "" {
		return t, nil
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.TraceRatio))),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", cfg.Name))),
	}
	var exporters []sdktrace.SpanExporter
	if cfg.OTLPEndpoint != "" {
		e, err := otlptracehttp.New(ctx, otlpOptions(cfg.OTLPEndpoint)...)
		if err != nil {
			return nil, fmt.Errorf("otlp exporter %s: %w", cfg.OTLPEndpoint, err)
		}
		exporters = append(exporters, e)
	}
	if cfg.ZipkinEndpoint != "" {
		e, err := zipkin.New(cfg.ZipkinEndpoint)
		if err != nil {
			var errs []error
			for _, x := range exporters {
				errs = append(errs, x.Shutdown(ctx))
			}
			return nil, errors.Join(fmt.Errorf("zipkin exporter %s: %w", cfg.ZipkinEndpoint, err), errors.Join(errs...))
		}
		exporters = append(exporters, e)
	}
	for _, e := range exporters {
		opts = append(opts, sdktrace.WithBatcher(e))
	}
	t.on = true
	t.provider = sdktrace.NewTracerProvider(opts...)
	t.tracer = t.provider.Tracer("github.com/latlab/latlab/graph")
	return t, nil
}

// otlpOptions configures the OTLP/HTTP exporter for endpoint, a base URL
// like the OTEL_EXPORTER_OTLP_ENDPOINT variable (/v1/traces appended) or,
// when it has a path, the full URL of the traces endpoint.
func otlpOptions(endpoint string) []otlptracehttp.Option {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpoint(u.Host), otlptracehttp.WithURLPath("/v1/traces")}
	if u.Scheme == "http" {
		opts = append(opts, otlptracehttp.WithInsecure())
	}
	return opts
}

// shutdown flushes and stops the exporters.
func (t *tracing) shutdown(ctx context.Context) error {
	if t.provider == nil {
		return nil
	}
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("flushing traces: %w", err)
	}
	return nil
}

// startSpan starts a span when tracing is on; otherwise it returns the
// non-recording span of ctx and costs nothing.
func (t *tracing) startSpan(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if !t.on {
		return ctx, trace.SpanFromContext(ctx)
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}
