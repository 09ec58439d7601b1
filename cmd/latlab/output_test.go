package main

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
)

func TestAttackText(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	code, stdout, stderr := runCLI(t, "attack", srv.URL+"/t", "-n", "20", "-c", "2")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	// Each line a user reads, as a pattern matching the whole line but for
	// the spaces that align the table.
	for _, want := range []string{
		`Target +GET ` + regexp.QuoteMeta(srv.URL) + `/t`,
		`Load +closed loop, 2 workers; (1 thread|2 threads)`,
		`Conns +2 opened before the load, 0 during it`,
		`Requests +sent 20, completed 20 in .+`,
		`Rate +.+ sent, throughput .+ successful`,
		`Success +100\.00% +codes 200:20`,
		`Errors +none`,
		`Bytes +in .+, out .+; transfer .+/s in, .+/s out`,
		`In flight +mean \d+\.\d\d \(time-weighted\), max \d+`,
		`samples +min +mean +stdev +p50 +p90 +p95 +p99 +p99\.9 +max`,
		`latency \(from intended send\) +20( +\S+){9}`,
		`service time \(from actual send\) +20( +\S+){9}`,
		`Latency histogram`,
	} {
		re := regexp.MustCompile(`(?m)^ *` + want + ` *$`)
		if !re.MatchString(stdout) {
			t.Errorf("no line matching %q in:\n%s", want, stdout)
		}
	}
}

func TestAttackOutputJSON(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	path := filepath.Join(t.TempDir(), "run.json")
	code, stdout, stderr := runCLI(t, "attack", srv.URL, "-n", "20", "-c", "2", "--format", "json", "-o", path)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(stdout, string(file)); diff != "" {
		t.Errorf("%s differs from stdout (-stdout +file):\n%s", path, diff)
	}
	if sum := decodeSummary(t, file); sum.Requests != 20 {
		t.Errorf("%s: requests %d, want 20", path, sum.Requests)
	}

	// With text on stdout, the file still holds the JSON.
	code, stdout, _ = runCLI(t, "attack", srv.URL, "-n", "5", "-c", "1", "-o", path)
	file, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum := decodeSummary(t, file); code != exitOK || sum.Requests != 5 || !strings.HasPrefix(stdout, "Target") {
		t.Errorf("exit %d, requests in file %d, stdout %q; want 0, 5 and text", code, sum.Requests, stdout)
	}
}

func TestAttackOutputHlog(t *testing.T) {
	// 200 requests of at least 2 ms each, two at a time, take 200 ms or
	// more however fast the machine: two intervals at least, and -n alone
	// ends the run however slow the machine.
	srv := newServer(t, plainHTTP, http.StatusOK, 2*time.Millisecond)
	path := filepath.Join(t.TempDir(), "run.hlog")
	sum := attackJSON(t, srv.URL, "-n", "200", "-c", "2", "--interval", "100ms", "-o", path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	counts := map[string]int64{}
	histograms := 0
	for i := 0; i < 10000; i++ {
		h, err := r.NextIntervalHistogram()
		if errors.Is(err, io.EOF) || err == nil && h == nil {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		counts[h.Tag()] += h.TotalCount()
		histograms++
	}
	want := map[string]int64{"latency": sum.Requests, "service": sum.Requests}
	if diff := cmp.Diff(want, counts); diff != "" || sum.Requests != 200 {
		t.Errorf("requests %d; samples by tag in %s (-want +got):\n%s", sum.Requests, path, diff)
	}
	if len(sum.Intervals) < 2 || histograms != 2*len(sum.Intervals) {
		t.Errorf("%d histograms in %s, want 2 per interval, %d", histograms, path, 2*len(sum.Intervals))
	}
}
