package main

import (
	"net/http"
	"regexp"
	"testing"
	"time"
)

// TestAttackBreakdown checks that an attack's text and JSON carry the wait
// and read of every response, with either client: the server sleeps before
// its head, so every wait is at least that sleep, and no phase exceeds the
// service time it is part of.
func TestAttackBreakdown(t *testing.T) {
	const sleep = 5 * time.Millisecond
	srv := newServer(t, plainHTTP, http.StatusOK, sleep)
	for _, client := range []string{"lean", "nethttp"} {
		t.Run(client, func(t *testing.T) {
			sum := attackJSON(t, srv.URL, "-n", "20", "-c", "2", "--client", client)
			w, r, s := sum.Wait, sum.Read, sum.ServiceTime
			if w.Count != 20 || r.Count != 20 || w.Min == nil || r.Max == nil {
				t.Fatalf("wait %+v, read %+v; want 20 samples each", w, r)
			}
			// Histograms keep 3 significant digits: min and mean are a
			// bucket's value, within 0.1% of the samples'.
			// Each response's first byte comes at least sleep after its send
			// (service time less read), whatever the load; the stamps may
			// come late on a busy machine, so wait alone need not hold it.
			// Histogram means are exact to about 0.1%.
			if *w.Min <= 0 || *s.Mean-*r.Mean < 0.99*sleep.Seconds() || *w.Max > *s.Max || *r.Max > *s.Max || *w.Mean+*r.Mean > 1.002**s.Mean {
				t.Errorf("wait min %g max %g mean %g, read max %g mean %g, service max %g mean %g: want the first byte ≥ %s after the send on average, each within service time",
					*w.Min, *w.Max, *w.Mean, *r.Max, *r.Mean, *s.Max, *s.Mean, sleep)
			}
			code, stdout, stderr := runCLI(t, "attack", srv.URL, "-n", "20", "-c", "2", "--client", client)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			// The lean client's event loops open the workers' connections
			// before the load; net/http opens them for the first requests.
			conns := `connect \(new connections\) +[12] `
			if client == "lean" {
				conns = `Conns +2 opened before the load, 0 during it`
			}
			for _, row := range []string{`wait \(request sent → first byte\) +20 `, `read \(first byte → last byte\) +20 `, conns} {
				if !regexp.MustCompile(row).MatchString(stdout) {
					t.Errorf("text lacks a row %q:\n%s", row, stdout)
				}
			}
		})
	}
}
