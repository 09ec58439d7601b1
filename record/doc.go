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
package record
