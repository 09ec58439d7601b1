// Package record holds what one run measured: per-request samples folded
// into HdrHistograms, a per-interval series, status and error counts, and the
// encoders that write them out (the JSON summary, the HdrHistogram interval
// log, and EncodeResult's exact encoding of a whole Result, which
// DecodeResult reads back, for results measured on another machine).
//
// Every duration is recorded in nanoseconds into histograms that track 1 µs
// to 1 h, in 512 ns steps below 512 µs and with 3 significant digits above
// (see NewHistogram); percentiles are read by HdrHistogram's rank rule (see
// Quantile). Latency is measured from a request's intended send time,
// service time from its actual send, and lag is the difference; the
// docs/numbers.md states the contract every number
// obeys.
//
// A run is recorded by one Recorder: NewRecorder and Start, then Sent as
// each request goes out and Record with its Sample as it ends, and Stop,
// which returns the Result that Summarize reads. The package's Example
// records three requests.
//
// A trial whose load several generators sent, shards of the load each
// with its own Recorder started at one common instant, is added up by
// Merge into the Result one generator would have recorded: histograms bucket by bucket, counts
// summed, times moved onto the earliest shard's start. What cannot be
// exact is bounded and said so: interval k holds every shard's own
// interval k, so the start spread bounds how far an interval's edges are
// off; in-flight peaks are summed, an upper bound; raw samples are shared
// fairly among the shards under a cap. CountsDiff compares two histograms
// bucket by bucket, to check a merge against a single recording.
//
// Sent and Record are safe to call concurrently; workers are spread over a
// few locked shards by their index, so recording costs one uncontended lock.
// Start, Stop and Snapshot belong to the goroutine that owns the run.
// Merge reads its results and changes none of them: results may be merged
// concurrently as long as nothing writes to them meanwhile.
//
// A run keeps every interval of its series to the end, and that is all its
// memory grows by with its length. An interval's latency and service-time
// histograms are kept in HdrHistogram's V2 compressed encoding (see Kept),
// the bytes a results database stores, and decoded only when read: at most
// about 2 KB each for the 1,000 to 2,100 buckets a second of 3,000
// connections against nginx on 127.0.0.1 fills, against 10 KB packed. The allocator rounds each
// encoding up to its size class, by at most a fifth; the interval's figures
// (112 bytes) and each recording shard's 8 bytes of time in flight (at most
// 16 shards) count twice over, as the slices holding them grow by doubling.
// So a kept interval costs at most 1.2 times its two encodings + 480 bytes:
// some 4.5 KB for such a second. Encoding them takes a millisecond or two
// each second, outside the recording path. Everything else is bounded
// whatever the length: the dense histograms being recorded into, allocated
// at the start (240 KB each: five per shard, three spare for all shards to
// take turns with as intervals close, and eleven for the interval being
// closed, the run's totals and its connections), and up to Config.KeepRaw
// raw samples of 40 bytes. A
// process's RSS follows what it keeps loosely: Go's collector lets the heap
// grow to twice what is live before it collects, and returns what it frees
// to the system in its own time. Over ten minutes at 3,000 connections the
// intervals kept under 3 MB, less than RSS swung by as the collector worked.
package record
