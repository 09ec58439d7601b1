package main

import (
	"runtime/debug"
	"testing"
)

// gcPercent returns the collector's current GOGC setting.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLean holds the attack's heap goal to attackGCPercent while it runs
// and puts the previous one back after; a GOGC the user set is left alone.
func TestLean(t *testing.T) {
	before := gcPercent()
	t.Setenv("GOGC", "")
	restore := lean()
	if got := gcPercent(); got != attackGCPercent {
		t.Errorf("GOGC %d during the attack, want %d", got, attackGCPercent)
	}
	restore()
	if got := gcPercent(); got != before {
		t.Errorf("GOGC %d after the attack, want %d as before", got, before)
	}
	t.Setenv("GOGC", "150")
	restore = lean()
	if got := gcPercent(); got != before {
		t.Errorf("GOGC %d during an attack with GOGC set, want %d untouched", got, before)
	}
	restore()
}
