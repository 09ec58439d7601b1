package main

import (
	"math"
	"net/http"
	"testing"
)

// TestFlagErrorsWorded holds that a flag value that does not parse, or a
// flag of another load generator, exits 2 with one line naming the flag and
// what to give instead.
func TestFlagErrorsWorded(t *testing.T) {
	const url = "http://127.0.0.1:1/" // nothing is sent: parsing fails first
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"duration without unit", []string{"attack", url, "-d", "10"}, []string{"-d 10: a duration needs a unit, e.g. 10s"}},
		{"duration without unit, long", []string{"attack", url, "--warmup=5"}, []string{"--warmup 5: a duration needs a unit"}},
		{"not a duration", []string{"attack", url, "--timeout", "5x"}, []string{"--timeout 5x: not a duration", "10s"}},
		{"other command's duration", []string{"graph", "up", "x.yaml", "--ready-timeout", "30"}, []string{"--ready-timeout 30: a duration needs a unit"}},
		{"count not a number", []string{"attack", url, "-n", "x"}, []string{"-n x: not a number"}},
		{"workers out of range", []string{"attack", url, "-c", "99999999999999999999"}, []string{"-c 99999999999999999999: out of range"}},
		{"rate with a bad period", []string{"attack", url, "-r", "100/q"}, []string{"-r 100/q: not a rate", "100ms"}},
		{"rate not a number", []string{"attack", url, "--rate=fast"}, []string{"-r fast: not a rate", "6000/m"}},
		{"hey's duration", []string{"attack", url, "-z", "10s"}, []string{"'z'", "hey", "use -d, such as -d 10s"}},
		{"hey's rate", []string{"attack", url, "-q", "10"}, []string{"'q'", "use -r"}},
		{"wrk2's rate", []string{"attack", url, "-R", "10"}, []string{"'R'", "wrk2", "use -r"}},
		{"wrk's threads", []string{"attack", url, "-t", "4"}, []string{"'t'", "wrk's thread count", "--threads", "--cpus"}},
		{"wrk's threads in a group", []string{"attack", url, "-t4"}, []string{"'t'", "--cpus"}},
		{"threads for HTTP/2", []string{"attack", url, "--threads", "4", "--h2c", "-n", "1"}, []string{"--threads", "HTTP/2"}},
		{"hey's content type", []string{"attack", url, "-T", "text/plain"}, []string{"'T'", "-H 'Content-Type"}},
		{"ab's keep-alive", []string{"attack", url, "-k", "-n", "1"}, []string{"--insecure", "-k is --insecure here", "keep-alive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
}

// TestAttackRatePerPeriod holds that -r takes a rate per a period, as
// vegeta writes it.
func TestAttackRatePerPeriod(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	for _, rate := range []string{"100", "100/s", "100/1s", "6000/m", "10/100ms"} {
		sum := attackJSON(t, srv.URL, "-r", rate, "-n", "3")
		if math.Abs(sum.TargetRate-100) > 1e-9 {
			t.Errorf("-r %s: target rate %g, want 100", rate, sum.TargetRate)
		}
	}
}
