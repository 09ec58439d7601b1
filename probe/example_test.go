package probe_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/latlab/latlab/probe"
)

// Example scrapes two graph nodes every 5 s over a 1 m window and watches
// a target's CPU, and latlab's own, for the length of a run; then it takes
// a CPU profile of one node. It needs the nodes running, so it is compiled
// but not run.
func Example() {
	const targetPID = 4242 // the target's process
	ctx, endRun := context.WithTimeout(context.Background(), time.Minute)
	defer endRun()
	start := time.Now()
	var mu sync.Mutex
	var points []probe.Point
	emit := func(p []probe.Point) { // called from each probe's goroutine
		mu.Lock()
		points = append(points, p...)
		mu.Unlock()
	}
	scraper := &probe.Scraper{
		URLs:     []string{"http://127.0.0.1:8081/metrics", "http://127.0.0.1:8082/metrics"},
		Interval: 5 * time.Second,
		Window:   time.Minute,
	}
	process := &probe.Process{PIDs: []int{targetPID}, Self: true}
	var wg sync.WaitGroup
	wg.Go(func() { _ = scraper.Run(ctx, start, emit) })
	wg.Go(func() { _ = process.Run(ctx, start, emit) })
	wg.Wait() // both return when ctx ends
	fmt.Println(len(points), "points")

	prof, err := probe.CaptureProfile(context.Background(), "http://127.0.0.1:8081", "cpu", 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range prof.Top {
		fmt.Println(f.Name, f.Flat, f.Cum)
	}
}
