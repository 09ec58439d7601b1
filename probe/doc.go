// Package probe takes side measurements while a run goes on: the
// Prometheus histograms of the targets turned into windowed quantiles, the
// CPU and memory of processes, and CPU and heap profiles. Every measurement is
// a Point (probe, series, labels, offset from the run's start, value) that the
// runner stores beside the run's own results; a measurement that fails is a
// Point too ("up" = 0 with the error as a label), never an aborted run.
//
// What each probe measures:
//
//   - Scraper scrapes Prometheus metrics endpoints (latlab graph nodes serve
//     latlab_*_seconds histograms on /metrics) every Interval and computes,
//     per histogram family and label group, what Prometheus would show for
//     q = 0.5, 0.9 and 0.99 over a 1 m window, plus p100 (the highest bucket
//     that grew in the window) and the observation rate: a filter's
//     p90/p99/p100 over time beside its queue wait, without running a
//     Prometheus server. Native histograms are preferred: the Scraper asks
//     for the protobuf exposition, and where the histograms carry native
//     (exponential) buckets, as latlab's nodes' do, it computes
//     histogram_quantile(q, sum by (…) (rate(x[1m]))) from those, whose
//     buckets are 9% wide; elsewhere, and for targets that serve only text,
//     histogram_quantile(q, sum by (le, …) (rate(x_bucket[1m]))) from the
//     classic buckets, which may be several times wider. The quantiles and
//     rates follow Prometheus's own code (see Quantile), including counter
//     resets, extrapolation to the window's edges and its treatment of
//     non-monotonic buckets.
//   - Process samples the CPU use (in % of one core and in % of the cores its
//     affinity allows, which a CPU budget such as "target CPU under 75%" is
//     checked against) and the resident memory of given processes and of
//     latlab itself; FindPIDs finds processes by name.
//   - Machine samples how busy the whole machine is (the load average,
//     other processes' share of the CPU time, a hypervisor's steal), so
//     that a run flagged on a busy machine can say why.
//   - CaptureProfile fetches a CPU or heap profile from a target's
//     net/http/pprof handlers and keeps the raw profile with its top
//     functions.
//   - QueryRange asks a real Prometheus server's HTTP API for PromQL range
//     queries over a run's window.
//   - TraceReceiver collects the graph's spans over OTLP/HTTP and turns them
//     into per-hop network and framework times.
//
// The package's Example scrapes two graph nodes every 5 s over a 1 m
// window and watches a target's CPU for the length of a run, then takes a
// CPU profile of one node.
//
// Concurrency: each Scraper and Process is meant for one goroutine, running
// Run (or calling Scrape or Sample one after another; concurrent calls are
// serialized). Different probes run in parallel freely. Run calls emit from
// its own goroutine, one call per scrape or sample, with a slice the caller
// then owns; the Labels maps in points may be shared between points and must
// be treated as read-only. Run returns when its context ends. The exported
// functions (Quantile, P100, FindPIDs, CaptureProfile) are safe to call
// concurrently; only one CPU profile can be taken from a process at a time,
// which is the target's rule, not this package's.
package probe
