package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// sloRow matches the row of limit in an SLO block, with its verdict.
func sloRow(limit, verdict string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(limit) + ` .* ` + regexp.QuoteMeta(verdict) + `$`)
}

func TestAttackSLO(t *testing.T) {
	ok := newServer(t, plainHTTP, http.StatusOK, time.Millisecond)
	failing := newServer(t, plainHTTP, http.StatusInternalServerError, 0)
	tests := []struct {
		name     string
		url      string
		slo      []string
		wantCode int
		rows     map[string]string // limit → verdict, each a row of the SLO block
		stderr   string
	}{
		{"met", ok.URL, []string{"--slo", "p99<1s,errors<1%"}, exitOK,
			map[string]string{"p99<1s": "met", "errors<1%": "met"}, ""},
		{"p50 broken", ok.URL, []string{"--slo", "p50<1us,p99<1s"}, exitFailure,
			map[string]string{"p50<1µs": "broken", "p99<1s": "met"}, "latlab: SLO p50<1µs,p99<1s broken: p50<1µs\n"},
		{"p50 broken, strict", ok.URL, []string{"--slo", "p50<1us", "--slo-strict"}, exitFailure,
			map[string]string{"p50<1µs": "broken"}, "latlab: SLO p50<1µs broken: p50<1µs\n"},
		// 200 samples are too few for p99.9: a gate does not pass on no data.
		{"n/a", ok.URL, []string{"--slo", "p99.9<1s"}, exitFailure,
			map[string]string{"p99.9<1s": "n/a: too few samples (200, needs 1000)  broken"}, "latlab: SLO p99.9<1s broken: p99.9<1s\n"},
		{"errors", failing.URL, []string{"--slo", "p99<1s,errors<1%"}, exitFailure,
			map[string]string{"p99<1s": "met", "errors<1%": "broken"}, "latlab: SLO p99<1s,errors<1% broken: errors<1%\n"},
		{"nothing asked", failing.URL, []string{"--slo", ""}, exitOK, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"attack", tt.url, "-n", "200", "-c", "4"}, tt.slo...)
			code, stdout, stderr := runCLI(t, args...)
			if code != tt.wantCode || stderr != tt.stderr {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.wantCode, tt.stderr)
			}
			if !strings.Contains(stdout, "Latency histogram") {
				t.Errorf("the attack's own result is missing:\n%s", stdout)
			}
			if got := strings.Contains(stdout, "\nSLO "); got != (tt.rows != nil) {
				t.Errorf("SLO block shown: %v, want %v:\n%s", got, tt.rows != nil, stdout)
			}
			for limit, verdict := range tt.rows {
				if !sloRow(limit, verdict).MatchString(stdout) {
					t.Errorf("no row %q ending %q in:\n%s", limit, verdict, stdout)
				}
			}
		})
	}
}

// TestAttackSLOStrict checks a run whose p50 breaks a limit that the lower
// bound of its 95% interval meets. Of 20 requests, 8 are answered at once
// and 12 after a second: p50, the 10th smallest, is at least a second; the
// interval's lower bound, the 6th smallest, is one of the fast ones, three
// of which would have to take over half a second for the test to fail.
func TestAttackSLOStrict(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%5 >= 2 { // the 2nd, 3rd and 4th of every 5
			time.Sleep(time.Second)
		}
	}))
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		name     string
		strict   bool
		wantCode int
		verdict  string
	}{
		{"lower bound", false, exitOK, "95% CI lower bound  met"},
		{"strict", true, exitFailure, "the run's p50  broken"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n.Store(0)
			args := []string{"attack", srv.URL, "-n", "20", "-c", "20", "--slo", "p50<500ms", "--format", "json"}
			if tt.strict {
				args = append(args, "--slo-strict")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			sum := decodeSummary(t, []byte(stdout))
			if sum.Requests != 20 || n.Load() != 20 {
				t.Fatalf("%d requests completed, %d seen; want 20", sum.Requests, n.Load())
			}
			if sum.Latency.P50 == nil || *sum.Latency.P50 < 1 {
				t.Errorf("p50 %v, want at least a second", sum.Latency.P50)
			}
			var got struct{ SLO report.AttackSLOJSON }
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatal(err)
			}
			l := got.SLO.Limits
			if len(l) != 1 || l[0].Bound == nil || l[0].Met != !tt.strict || got.SLO.Strict != tt.strict {
				t.Fatalf("slo %+v, want one limit met %v", got.SLO, !tt.strict)
			}
			if !tt.strict && *l[0].Bound >= 0.5 {
				t.Errorf("bound %g s, want one of the fast requests", *l[0].Bound)
			}
			// With JSON on stdout, the broken rows go to stderr.
			if tt.strict && !sloRow("p50<500ms", tt.verdict).MatchString(stderr) {
				t.Errorf("stderr lacks the broken row:\n%s", stderr)
			}
			if !tt.strict && stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
		})
	}
}

// TestAttackSLOOutputs checks that a broken SLO exits 1 only after every
// output is written, the verdict with them.
func TestAttackSLOOutputs(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	jsonPath, dbPath := filepath.Join(dir, "run.json"), filepath.Join(dir, "results.db")

	code, stdout, stderr := runCLI(t, "attack", srv.URL, "-n", "50", "-c", "2", "--format", "json", "--slo", "p50<1us", "-o", jsonPath)
	if code != exitFailure || !strings.HasSuffix(stderr, "latlab: SLO p50<1µs broken: p50<1µs\n") {
		t.Errorf("exit %d, stderr %q; want %d and the SLO named", code, stderr, exitFailure)
	}
	file, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(stdout, string(file)); diff != "" {
		t.Errorf("%s differs from stdout (-stdout +file):\n%s", jsonPath, diff)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(file, &m); err != nil || m["slo"] == nil || m["latency_seconds"] == nil {
		t.Errorf("%s: %v; want the summary with an slo key:\n%s", jsonPath, err, file)
	}

	code, _, _ = runCLI(t, "attack", srv.URL, "-n", "50", "-c", "2", "--slo", "p50<1us", "-o", dbPath)
	if code != exitFailure {
		t.Errorf("-o %s: exit %d, want %d", dbPath, code, exitFailure)
	}
	db, err := store.OpenReadOnly(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exps, err := db.Experiments(t.Context())
	if err != nil || len(exps) != 1 {
		t.Fatalf("experiments %v, %v; want the attack stored", exps, err)
	}
	runs, err := db.Runs(t.Context(), exps[0].ID)
	if err != nil || len(runs) != 1 || runs[0].Summary == nil || runs[0].Summary.Requests != 50 {
		t.Errorf("runs %+v, %v; want one of 50 requests", runs, err)
	}
}

func TestAttackSLOBadInput(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown quantile", []string{"--slo", "p99<50ms,p42<1s"}, []string{"--slo", `"p42<1s"`, "not a reported quantile"}},
		{"not a limit", []string{"--slo", "p99>50ms"}, []string{"--slo", `"p99>50ms"`, "NAME<LIMIT"}},
		{"bad duration", []string{"--slo", "p99<fast"}, []string{"--slo", `"p99<fast"`, "duration"}},
		{"errors without %", []string{"--slo", "errors<1"}, []string{"--slo", `"errors<1"`, "percentage"}},
		{"strict alone", []string{"--slo-strict"}, []string{"--slo-strict", "--slo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"attack", srv.URL, "-n", "1"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("server saw %d requests: a bad --slo must fail before the attack", n)
	}
}

func TestSLOHelp(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"attack", []string{"--slo string", "--slo-strict", "--slo 'p99<50ms,errors<1%'\n", "--slo 'p99<50ms,errors<1%' --slo-strict\n"}},
		{"run", []string{"--slo string", "(default: the spec's slo:)", "--slo-strict", "overrides it", "--slo 'p99<50ms,errors<1%' --slo-strict\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.cmd, "--help")
			if code != exitOK || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("help lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}
