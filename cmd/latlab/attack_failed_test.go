package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttackAllFailed holds that an attack whose every request failed (a
// self-signed certificate, not trusted) still exits 0, as a completed run
// does, but ends in a warning naming the failure and its fix.
func TestAttackAllFailed(t *testing.T) {
	srv := newServer(t, tlsHTTP2, http.StatusOK, 0)
	code, stdout, stderr := runCLI(t, "attack", srv.URL, "-n", "20", "-c", "2")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	for _, want := range []string{"warning: all 20 requests failed", "All 20 are tls errors", "certificate", "--cacert", "--insecure"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.HasSuffix(stdout, "\n") || strings.Index(stdout, "warning: all 20") < strings.Index(stdout, "Latency histogram") {
		t.Errorf("the warning is not at the end:\n%s", stdout)
	}
}
