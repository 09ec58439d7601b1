package main

import (
	"os"
	"runtime/debug"

	"github.com/latlab/latlab/internal/exepages"
)

// attackGCPercent is the heap growth latlab attack lets Go's collector
// allow between collections, unless GOGC says otherwise. The attack's heap
// is mostly the recorder's dense histograms, allocated once and alive to
// the end (some 7 MB at 2 CPUs), and its loops allocate next to nothing
// per request: what comes and goes is a few scratch buffers per second. At
// Go's default of 100 that garbage would be let grow to the size of the
// histograms, doubling the heap for no speed; at 25 collections come more
// often and mark mostly pointer-free memory (50 connections for 5 s: 12
// collections instead of 3, about 0.3% more CPU per request). An open loop
// that opens thousands of connections grows its heap, and collects more.
const attackGCPercent = 25

// lean makes the process as small as the load it is about to send needs:
// a tighter heap goal, and the binary's pages that start-up touched handed
// back (see package exepages). Neither can change what is measured; a
// failure to release only leaves the pages where they were. The returned
// func puts the heap goal back once the run and its result are done with.
func lean() (restore func()) {
	restore = func() {}
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(attackGCPercent)
		restore = func() { debug.SetGCPercent(old) }
	}
	_, _ = exepages.Release()
	return restore
}
