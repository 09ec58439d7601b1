package main

import (
	"net/url"
	"runtime/debug"
	"testing"

	"github.com/latlab/latlab/load"
)

// gcPercent returns the collector's current GOGC setting.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLean holds the attack's heap goal to load.GCPercent's while it runs
// and puts the previous one back after; a GOGC the user set is left alone.
func TestLean(t *testing.T) {
	before := gcPercent()
	t.Setenv("GOGC", "")
	u, _ := url.Parse("grpc://127.0.0.1:50051/grpc.health.v1.Health/Check")
	cfg := load.Config{Source: load.Static{{URL: u}}, Model: load.Closed{Workers: 1}}
	restore := lean(cfg)
	if got, want := gcPercent(), load.GCPercent(cfg); got != want {
		t.Errorf("GOGC %d during the attack, want %d", got, want)
	}
	restore()
	if got := gcPercent(); got != before {
		t.Errorf("GOGC %d after the attack, want %d as before", got, before)
	}
	t.Setenv("GOGC", "150")
	restore = lean(cfg)
	if got := gcPercent(); got != before {
		t.Errorf("GOGC %d during an attack with GOGC set, want %d untouched", got, before)
	}
	restore()
}
