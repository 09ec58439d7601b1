package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestRunTrialLines runs a plan with stdout and stderr not terminals, as
// in a CI log: each trial prints its line on stdout, in plan order, before
// the closing summary, and no live status line (carriage returns, escape
// codes) reaches either.
func TestRunTrialLines(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	spec := writeIn(t, dir, "spec.yaml", strings.Replace(sloSpec(srv.URL, ""), "requests: 1000", "requests: 20", 1)+"runs: 3\n")
	code, stdout, stderr := runCLI(t, "run", spec, "-o", dir+"/results.db", "-q")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	re := regexp.MustCompile(`(?m)^trial (\d): plain c=4 rep (\d): done, 20 requests`)
	got := re.FindAllStringSubmatch(stdout, -1)
	if len(got) != 3 {
		t.Fatalf("%d trial lines on stdout, want 3:\n%s", len(got), stdout)
	}
	for i, m := range got {
		if want := string(rune('1' + i)); m[1] != want || m[2] != want {
			t.Errorf("line %d is trial %s rep %s, want trial %s rep %s", i+1, m[1], m[2], want, want)
		}
	}
	if last := strings.LastIndex(stdout, "trial 3:"); last > strings.Index(stdout, "ran experiment") {
		t.Errorf("trial lines after the summary:\n%s", stdout)
	}
	if strings.Contains(stderr, "trial 1: plain") {
		t.Errorf("trial lines on stderr too:\n%s", stderr)
	}
	for _, out := range []string{stdout, stderr} {
		if strings.ContainsAny(out, "\r\x1b") {
			t.Errorf("a live status line in output that is not a terminal: %q", out)
		}
	}
}
