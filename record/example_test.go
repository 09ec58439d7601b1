package record_test

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/record"
)

// Example records three requests, as a load generator's workers do, and
// summarises the run.
func Example() {
	rec := record.NewRecorder(time.Now(), record.Config{Interval: time.Second})
	rec.Start()
	// From any number of goroutines, each worker with its own index:
	for i := range 3 {
		worker := i % 2
		intended := time.Duration(i) * time.Millisecond
		rec.Sent()
		rec.Record(worker, &record.Sample{
			Intended: intended,
			Sent:     intended + 100*time.Microsecond, // 100 µs of lag
			Done:     intended + 2100*time.Microsecond,
			Code:     200,
		})
	}
	res := rec.Stop()
	sum, err := record.Summarize(res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Requests, "requests, status codes", sum.StatusCodes)
	fmt.Printf("latency p50 %.4f s, service time p50 %.4f s\n", *sum.Latency.P50, *sum.ServiceTime.P50)
	// Output:
	// 3 requests, status codes map[200:3]
	// latency p50 0.0021 s, service time p50 0.0020 s
}

// ExampleMerge adds up two shards' results of one trial: each generator
// sent every other request of the schedule with a Recorder of its own.
func ExampleMerge() {
	start := time.Now()
	var shards []*record.Result
	for shard := range 2 {
		rec := record.NewRecorder(start, record.Config{Interval: time.Second})
		for i := shard; i < 10; i += 2 {
			intended := time.Duration(i) * time.Millisecond
			rec.Sent()
			rec.Record(0, &record.Sample{Intended: intended, Sent: intended, Done: intended + time.Duration(i+1)*time.Millisecond, Code: 200})
		}
		shards = append(shards, rec.Stop())
	}
	merged, err := record.Merge(shards, record.MergeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p50, _ := record.Quantile(merged.Latency, 0.5)
	fmt.Println(merged.Requests, "requests, latency p50", p50.Round(time.Millisecond))
	// Output:
	// 10 requests, latency p50 5ms
}
