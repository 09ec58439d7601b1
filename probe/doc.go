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
//     Prometheus server, as the section Scraper below says.
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
//
// # Scraper
//
// The Scraper asks for the protobuf exposition, which carries native
// (exponential) histograms, and reads the text format from targets that
// serve only that. Its quantiles and rates follow Prometheus's own code
// (see Quantile), including counter resets, extrapolation to the window's
// edges and its treatment of non-monotonic buckets.
//
// Native histograms are preferred. A group (see Scraper.By) whose
// histograms all have native buckets, in at least two scrapes in the
// window, is evaluated from those as Prometheus evaluates
//
//	histogram_quantile(q, sum by (<By>) (rate(x[<Window>])))
//
// for native histograms: the rank is counted from the bottom for q < 0.5
// and from the top otherwise, and the quantile interpolated inside its
// bucket on a logarithmic scale (linearly in the zero bucket); p100 is the
// upper bound of the highest bucket that grew. Native buckets are narrow,
// 2.2% wide for the bucket factor latlab's nodes use, so p100 and the
// quantiles between two classic buckets come out within a few percent. As
// in Prometheus, the histogram was reset when its count or any bucket went
// down, all its buckets share one extrapolation, and histograms of different
// resolutions are summed at the lowest. Unlike in Prometheus, a histogram
// whose target lowers its resolution in mid-run keeps the lower one for as
// long as it is scraped, rather than until the higher one fills the window
// again (client_golang only raises it again after a reset).
//
// Any other group, and every group of a target that serves only text, is
// evaluated from the cumulative classic bucket counts, which may be several
// times wider, exactly as Prometheus computes
//
//	histogram_quantile(q, sum by (le, <By>) (rate(x_bucket[<Window>])))
//
// (see Quantile and P100). Either way the points have the same series names
// and labels. A quantile from classic buckets is an interpolation inside the
// bucket its rank fell in, and the buckets say nothing finer: with
// kube-apiserver's 100 µs, 300 µs, 1 ms, … a p99 read as 250 µs is anywhere
// in (100 µs, 300 µs]. So each such quantile and p100 comes with two more
// series, the bounds of that bucket: "x:p99:bucket_lo" and "x:p99:bucket_hi"
// (BucketLow, BucketHigh; a rank in the +Inf bucket has only the lower).
// The window ending at a scrape is Prometheus 3's range (t−Window, t], t
// being the scrape's offset in milliseconds; a rate needs two samples in
// it, so the first scrape yields only up points, and a window without
// observations yields no quantiles (Prometheus would show NaN).
package probe
