// Command latlab measures what a hop in a request path costs: it generates
// load, stands up synthetic services, runs experiments and reports latency
// with its uncertainty. Run "latlab help" for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/latlab/latlab/graph"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == graph.ReapCommand {
		os.Exit(graph.Reap(os.Args[2:])) // a start command's reaper (see graph.Reap)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		cancel() // first: stop sending, drain, report what was measured
		<-sig
		os.Exit(exitInterrupted) // second: leave now
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
