package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// sloSpec is a spec of one external target loaded by four workers for
// 1000 requests (enough for p99.9), with slo as its slo field ("" for none). Its validity bounds
// are loose so that no run is flagged and left out of the verdict.
func sloSpec(target, slo string) string {
	s := fmt.Sprintf(`version: 1
name: gate
variants:
  - {name: plain, target: "%s/"}
load: {mode: closed, concurrency: [4], requests: 1000}
validity: {max_trend: 10000%%, max_lag_p99: 10s}
`, target)
	if slo != "" {
		s += "slo: " + slo + "\n"
	}
	return s
}

func TestRunSLO(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	tests := []struct {
		name     string
		slo      string   // the spec's
		args     []string // more flags
		wantCode int
		want     []string // lines of stdout
		stderr   string   // its last line
	}{
		{"spec broken", "{p50: 1us}", nil, exitFailure,
			[]string{"SLO p50<1µs, judged on the 95% CI's lower bound (below 6 runs, the lowest run)",
				"  plain: fails at the lowest level, c=4", "Violations: 1"},
			"latlab: SLO p50<1µs broken in 1 row(s)"},
		{"spec broken, strict", "{p50: 1us}", []string{"--slo-strict"}, exitFailure,
			[]string{"SLO p50<1µs, judged on the median over runs (strict)", "Violations: 1"},
			"latlab: SLO p50<1µs broken in 1 row(s)"},
		{"spec met", "{p50: 10s, errors: 1%}", nil, exitOK,
			[]string{"SLO p50<10s,errors<1%, judged on the 95% CI's lower bound (below 6 runs, the lowest run)",
				"  plain: meets it at every level, up to c=4", "Violations: none"}, ""},
		{"flag overrides the spec", "{p50: 1us}", []string{"--slo", "p50<10s"}, exitOK,
			[]string{"SLO p50<10s, judged on the 95% CI's lower bound (below 6 runs, the lowest run)", "Violations: none"}, ""},
		{"flag breaks", "", []string{"--slo", "p50<1us,errors<1%"}, exitFailure,
			[]string{"Violations: 1"}, "latlab: SLO p50<1µs,errors<1% broken in 1 row(s)"},
		{"empty flag judges nothing", "{p50: 1us}", []string{"--slo", ""}, exitOK, nil, ""},
		{"no SLO", "", nil, exitOK, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := writeIn(t, dir, "spec.yaml", sloSpec(srv.URL, tt.slo))
			db := filepath.Join(dir, "results.db")
			code, stdout, stderr := runCLI(t, append([]string{"run", spec, "-o", db, "-q"}, tt.args...)...)
			if code != tt.wantCode || !strings.HasSuffix(stderr, tt.stderr+"\n") && tt.stderr != "" {
				t.Errorf("exit %d, stderr %q; want %d and %q last", code, stderr, tt.wantCode, tt.stderr)
			}
			if !strings.Contains(stdout, "1 trials, 0 done before, 1 done now, 0 flagged, 0 failed") {
				t.Fatalf("the trial did not run as it should:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, "\n"+w+"\n") {
					t.Errorf("stdout lacks the line %q:\n%s", w, stdout)
				}
			}
			if got := strings.Contains(stdout, "\nSLO "); got != (tt.want != nil) {
				t.Errorf("SLO verdict shown: %v, want %v:\n%s", got, tt.want != nil, stdout)
			}
			if tt.wantCode == exitFailure && !strings.Contains(stdout, "  plain    c=4    p50<1µs") {
				t.Errorf("stdout lacks the broken row:\n%s", stdout)
			}
		})
	}
}

// TestRunSLOInterrupted checks that an interrupted run is judged on what
// it measured and still exits 130.
func TestRunSLOInterrupted(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, time.Millisecond)
	dir := t.TempDir()
	spec := writeIn(t, dir, "spec.yaml", strings.Replace(sloSpec(srv.URL, "{p50: 1us}"), "requests: 1000", "duration: 30s", 1))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := runAsync(ctx, "run", spec, "-o", filepath.Join(dir, "results.db"), "-q")
	interruptOnceSeen(t, srv, 20, cancel) // past the readiness check, into the load
	r := await(t, done, drainLimit)
	if r.code != exitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, exitInterrupted, r.stderr)
	}
	for _, w := range []string{"\nSLO p50<1µs, judged on", "\nViolations: 1\n", "\ninterrupted: run the same command again to resume\n"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
		}
	}
}

func TestRunSLOBadInput(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	tests := []struct {
		name string
		slo  string
		args []string
		want []string
	}{
		{"bad flag", "", []string{"--slo", "p99<soon"}, []string{"--slo", `"p99<soon"`}},
		{"bad flag, dry run", "", []string{"--slo", "p75<1s", "--dry-run"}, []string{"--slo", `"p75<1s"`}},
		{"strict without an SLO", "", []string{"--slo-strict"}, []string{"--slo-strict", "--slo"}},
		{"bad spec value", "\n  p50: 1ms\n  p99: soon", nil, []string{"spec.yaml:9: slo.p99:", `"soon"`}},
		{"spec quantile not judged", "\n  p75: 1ms", nil, []string{"spec.yaml:8: slo.p75:", "p99.9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := writeIn(t, dir, "spec.yaml", sloSpec(srv.URL, tt.slo))
			code, stdout, stderr := runCLI(t, append([]string{"run", spec, "-o", filepath.Join(dir, "results.db"), "-q"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("server saw %d requests: bad input must fail before the run", n)
	}
}

// TestStoredSLO checks what latlab report judges when --slo is not given:
// the slo of the spec the experiment ran, as stored.
func TestStoredSLO(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		want    string // as analysis.SLO.String writes it
		wantErr string
	}{
		{"spec", sloSpec("http://127.0.0.1:9", "{p99.0: 50ms, p100: 1s, errors: 1%}"), "p99<50ms,max<1s,errors<1%", ""},
		{"none", sloSpec("http://127.0.0.1:9", ""), "", ""},
		{"attack", "latlab attack http://127.0.0.1:8080/ -c 50 --slo p99<50ms", "", ""},
		{"bad", sloSpec("http://127.0.0.1:9", "\n  p75: 1ms"), "", "spec of experiment 3 in results.db:8: slo.p75: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := &analysis.Experiment{Experiment: store.Experiment{ID: 3, Spec: tt.spec}}
			got, err := storedSLO("results.db", exp)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := got.String(); s != tt.want {
				t.Errorf("SLO %q, want %q", s, tt.want)
			}
		})
	}
}
