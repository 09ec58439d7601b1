// Package record holds what one run measured: per-request samples folded
// into HdrHistograms, a per-interval series, status and error counts, and the
// encoders that write them out (the JSON summary and the HdrHistogram
// interval log).
//
// Every duration is recorded in nanoseconds into histograms that track 1 µs
// to 1 h with 3 significant digits. Latency is measured from a request's
// intended send time, service time from its actual send, and lag is the
// difference; the README's "What every number means" states the contract every number obeys.
//
// A run is recorded by one Recorder:
//
//	rec := record.NewRecorder(time.Now(), record.Config{Interval: time.Second})
//	rec.Start()
//	// from any number of goroutines:
//	rec.Sent(worker)
//	rec.Record(worker, &record.Sample{Intended: i, Sent: s, Done: d, Code: 200})
//	res := rec.Stop()
//	sum := record.Summarize(res)
//
// Sent and Record are safe to call concurrently; workers are spread over a
// few locked shards by their index, so recording costs one uncontended lock.
// Start, Stop and Snapshot belong to the goroutine that owns the run.
//
// A run keeps every interval of its series to the end, and that is all its
// memory grows by with its length. An interval's latency and service-time
// histograms are kept packed and cut to fit: 4 bytes per populated bucket
// for the bucket's index and w for its count (1 while every count is below
// 256; 2, 4 or 8 past that), which the allocator's rounding raises by at
// most a quarter; its figures, histogram headers and time in flight add
// under 1 KB. So a kept interval costs at most 1 KB + 1.25·(4+w) bytes per
// populated bucket of each histogram: about 24 KB for a second of 3,000
// connections against nginx on 127.0.0.1, whose latencies fill some 2,100
// buckets. Everything else is bounded whatever the length: the dense
// histograms being recorded into, allocated at the start, and up to
// Config.KeepRaw raw samples of 40 bytes. A process's RSS grows by two to
// three times what it keeps: Go's collector lets the heap grow to twice what
// is live before it collects, and holds on to some of what it frees.
package record
