package main

import (
	"path/filepath"
	"testing"
)

// TestAttackFirstProblem holds which problem attack names when several
// flags are wrong at once: -c and --arrivals first, then how the flags
// combine, the rates, -d, the other options in the order of their flags'
// help, and --samples only after -o and --format.
func TestAttackFirstProblem(t *testing.T) {
	const url = "http://127.0.0.1:1/" // never dialled: every case is refused first
	db := filepath.Join(t.TempDir(), "x.db")
	tests := []struct {
		args []string
		want string // the whole line on stderr
	}{
		{[]string{"-c", "0", "--sequential"}, "-c: want at least 1, got 0"},
		{[]string{"--arrivals", "x", "--sequential", "-r", "1"}, `--arrivals: want constant or poisson, got "x"`},
		{[]string{"--sequential", "-r", "0", "-d", "0"}, "--sequential sends one request at a time: drop -r, --stages, --ramp and -c"},
		{[]string{"--pool", "0", "-c", "5"}, "--pool opens the connections of an open loop: give -r or --stages too"},
		{[]string{"--realtime", "-c", "5"}, "--realtime runs an open loop's event loops: give -r or --stages too"},
		{[]string{"--realtime", "-r", "10", "--h2c"}, "--realtime: makes the lean HTTP/1.1 client's event loops real-time threads; HTTP/2 and net/http have none"},
		{[]string{"-r", "0", "-d", "0"}, "-r: want a positive rate, got 0"},
		{[]string{"-r", "10", "--pool", "0"}, "--pool: want at least 1, got 0"},
		{[]string{"-n", "-1", "-d", "0"}, "-n: want a positive number of requests, got -1"},
		{[]string{"-d", "0", "--interval", "0"}, "-d: want a positive duration, got 0s"},
		{[]string{"--success", "99", "--timeout", "0"}, `--success: "99" is not a status code (100 to 999, or a gRPC status such as OK or UNAVAILABLE)`},
		{[]string{"--streams", "0", "--http2", "--h2c"}, "--streams: want at least 1, got 0"},
		{[]string{"--http2", "--h2c", "--client", "x"}, "give --http2 (over TLS) or --h2c (cleartext), not both"},
		{[]string{"--samples", "-1", "--client", "x"}, `--client: want lean or nethttp, got "x"`},
		{[]string{"--samples", "-1", "-o", db, "--format", "xml"}, `--format: want text or json, got "xml"`},
		{[]string{"--samples", "-1", "-o", db}, "--samples: want 0 or more, got -1"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, append([]string{"attack", url}, tt.args...)...)
		checkUsageError(t, code, stdout, stderr)
		if want := "latlab: " + tt.want + "\n"; stderr != want {
			t.Errorf("%v: stderr %q, want %q", tt.args, stderr, want)
		}
	}
}
