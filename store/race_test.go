//go:build race

package store

// raceEnabled is true when the tests run with the race detector, which
// makes SQLite, compiled from C to Go, many times slower.
const raceEnabled = true
