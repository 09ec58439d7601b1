package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// The runner starts every container through itself: "ip netns exec"
	// runs this binary again as the shim, which mounts the volumes and
	// execs the container's command.
	if len(os.Args) > 1 && os.Args[1] == shimArg {
		os.Exit(shim(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}
