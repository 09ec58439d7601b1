package experiment

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latlab/latlab/probe"
)

// TestCollectTracesCancelled holds that a trial whose context ends while it
// waits for the nodes' last spans stops waiting, with the context's error,
// and that the wait runs out without one otherwise.
func TestCollectTracesCancelled(t *testing.T) {
	defer func(d time.Duration) { traceFlush = d }(traceFlush)
	tr := &trialRun{r: &Runner{traces: probe.NewTraceReceiver()}}

	traceFlush = time.Millisecond
	if err := tr.collectTraces(context.Background()); err != nil {
		t.Fatalf("collectTraces = %v after its wait, want nil", err)
	}

	traceFlush = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tr.collectTraces(ctx) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("collectTraces = %v, want %v", err, context.Canceled)
		}
	case <-time.After(time.Minute):
		t.Fatal("collectTraces still waiting for spans a minute after its context ended")
	}
}
