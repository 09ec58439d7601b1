package middleware

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric and label names, exported through the collectors Metrics registers.
const (
	labelFilter     = "filter"
	labelLevel      = "priority_level"
	labelFlow       = "flow"
	labelReason     = "reason"
	namespace       = "latlab"
	reasonFull      = "queue-full"
	reasonCancelled = "cancelled"
)

// Metrics holds the Prometheus collectors of this package:
//
//	latlab_request_filter_duration_seconds{filter}                     histogram, B−A of each tracked filter
//	latlab_request_filter_rejected_total{filter}                       counter, requests a tracked filter did not pass on
//	latlab_flowcontrol_request_wait_duration_seconds{priority_level,flow} histogram, time queued before a seat (0 if none)
//	latlab_flowcontrol_current_inqueue_requests{priority_level}        gauge
//	latlab_flowcontrol_current_executing_requests{priority_level}      gauge
//	latlab_flowcontrol_rejected_requests_total{priority_level,reason}  counter, reason "queue-full" or "cancelled"
//
// Every histogram is in seconds with classic buckets from 10 µs to 10 s
// (25 buckets, four per decade: 1e-05, 1.778e-05, 3.162e-05, 5.623e-05,
// 0.0001, …) and a native histogram beside them (bucket factor 1.03,
// which client_golang makes 2^(1/32): buckets 2.2% wide; at most 320
// buckets, reset at most once an hour).
//
// The flow label is the user name read from the request: one series per
// (level, user). Its cardinality is the caller's concern — bound the set of
// users that can reach a FairQueue, or pass it a nil *Metrics.
//
// A nil *Metrics is valid everywhere and records nothing. Several filters and
// fair queues may share one Metrics; their series add up where labels agree.
type Metrics struct {
	filterDuration *prometheus.HistogramVec
	filterRejected *prometheus.CounterVec
	waitDuration   *prometheus.HistogramVec
	inQueue        *prometheus.GaugeVec
	executing      *prometheus.GaugeVec
	rejected       *prometheus.CounterVec
}

// NewMetrics returns new collectors registered on reg; a nil reg leaves them
// unregistered. Where reg already holds an identical collector (NewMetrics
// called twice on one registry) the existing one is adopted, so both Metrics
// record into the same series. If reg refuses a collector for any other
// reason — a different metric of the same name — NewMetrics panics, as
// prometheus.MustRegister does; use NewMetrics(nil) and Register to get the
// error instead.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		filterDuration: prometheus.NewHistogramVec(durationOpts("request", "filter_duration_seconds",
			"Time from a request entering a filter to the filter calling the next handler (B-A)."),
			[]string{labelFilter}),
		filterRejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "request", Name: "filter_rejected_total",
			Help: "Requests a tracked filter answered itself instead of calling the next handler.",
		}, []string{labelFilter}),
		waitDuration: prometheus.NewHistogramVec(durationOpts("flowcontrol", "request_wait_duration_seconds",
			"Time a request spent in its fair-queue queue before it got a seat (0 if it got one at once)."),
			[]string{labelLevel, labelFlow}),
		inQueue: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "flowcontrol", Name: "current_inqueue_requests",
			Help: "Requests waiting in the queues of a priority level.",
		}, []string{labelLevel}),
		executing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "flowcontrol", Name: "current_executing_requests",
			Help: "Requests holding a seat of a priority level.",
		}, []string{labelLevel}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "flowcontrol", Name: "rejected_requests_total",
			Help: "Requests a fair queue rejected, by reason (queue-full, cancelled).",
		}, []string{labelLevel, labelReason}),
	}
	if err := m.Register(reg); err != nil {
		panic(fmt.Sprintf("middleware.NewMetrics: %v", err))
	}
	return m
}

// Register registers m's collectors on reg, adopting identical collectors reg
// already holds. Call it before m is handed to Track or NewFairQueue, which
// bind to m's collectors when they are built. Register on a nil *Metrics or
// with a nil reg does nothing.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	if m == nil || reg == nil {
		return nil
	}
	return errors.Join(
		register(reg, &m.filterDuration),
		register(reg, &m.filterRejected),
		register(reg, &m.waitDuration),
		register(reg, &m.inQueue),
		register(reg, &m.executing),
		register(reg, &m.rejected),
	)
}

// register registers *c on reg, replacing *c by the collector reg already
// holds if it is the same metric.
func register[C prometheus.Collector](reg prometheus.Registerer, c *C) error {
	err := reg.Register(*c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			*c = existing
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	return nil
}

// durationOpts returns the options every histogram of this package shares.
func durationOpts(subsystem, name, help string) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{
		Namespace:                       namespace,
		Subsystem:                       subsystem,
		Name:                            name,
		Help:                            help,
		Buckets:                         durationBuckets(),
		NativeHistogramBucketFactor:     1.03,
		NativeHistogramMaxBucketNumber:  320,
		NativeHistogramMinResetDuration: time.Hour,
	}
}

// durationBuckets returns 25 bucket bounds from 10 µs to 10 s, four per
// decade, rounded to four significant digits so that the le labels read
// 1.778e-05, not 1.7782794100389227e-05.
func durationBuckets() []float64 {
	b := prometheus.ExponentialBucketsRange(10e-6, 10, 25)
	for i, v := range b {
		b[i], _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	}
	return b
}
