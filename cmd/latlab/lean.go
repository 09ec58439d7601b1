package main

import (
	"os"
	"runtime/debug"

	"github.com/latlab/latlab/internal/exepages"
	"github.com/latlab/latlab/load"
)

// lean makes the process as small as the load it is about to send needs:
// the heap goal that suits it (load.GCPercent), unless GOGC says
// otherwise, and the binary's pages that start-up touched handed back (see
// package exepages). Neither can change what is measured; a failure to
// release only leaves the pages where they were. The returned func puts
// the heap goal back once the run and its result are done with.
func lean(cfg load.Config) (restore func()) {
	restore = func() {}
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(load.GCPercent(cfg))
		restore = func() { debug.SetGCPercent(old) }
	}
	_, _ = exepages.Release()
	return restore
}
