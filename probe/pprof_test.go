package probe

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// pprofServer mounts net/http/pprof on a private mux, as a target does.
func pprofServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// burnCPU spins until stop is set; the CPU profile should find it.
func burnCPU(stop *atomic.Bool) uint64 {
	var x uint64 = 1
	for !stop.Load() {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

// heapSink keeps allocations alive for the heap profile.
var heapSink [][]byte

func checkTop(t *testing.T, p *Profile) {
	t.Helper()
	if !bytes.HasPrefix(p.Raw, []byte{0x1f, 0x8b}) {
		t.Errorf("Raw is not the gzipped profile as served: % x…", p.Raw[:min(len(p.Raw), 4)])
	}
	if p.Total <= 0 || len(p.Top) == 0 || len(p.Top) > 20 {
		t.Fatalf("Total %d, %d top functions; want a positive total and 1..20", p.Total, len(p.Top))
	}
	if !slices.IsSortedFunc(p.Top, func(a, b Func) int { return int(b.Flat - a.Flat) }) {
		t.Errorf("Top not sorted by flat: %+v", p.Top)
	}
	for _, f := range p.Top {
		if f.Flat > f.Cum || f.Cum > p.Total {
			t.Errorf("%+v: want flat ≤ cum ≤ total %d", f, p.Total)
		}
	}
}

func TestCaptureProfileCPU(t *testing.T) {
	srv := pprofServer(t)
	var stop atomic.Bool
	done := make(chan uint64)
	go func() { done <- burnCPU(&stop) }()
	p, err := CaptureProfile(t.Context(), srv.URL, "cpu", time.Second)
	stop.Store(true)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "cpu" || p.SampleType != "cpu" || p.Unit != "nanoseconds" || p.URL != srv.URL+"/debug/pprof/profile?seconds=1" {
		t.Errorf("got kind %q, sample type %s/%s, URL %s", p.Kind, p.SampleType, p.Unit, p.URL)
	}
	checkTop(t, p)
	i := slices.IndexFunc(p.Top, func(f Func) bool { return strings.HasSuffix(f.Name, "probe.burnCPU") })
	if i < 0 {
		t.Fatalf("burnCPU not among the top functions: %+v", p.Top)
	}
	// It spun for the whole second, whatever share of the machine it got:
	// it holds most of what this otherwise idle process spent. (Under the
	// race detector much of its own time is in the instrumented atomic
	// load it calls, so its flat share is not a guarantee.)
	if f := p.Top[i]; f.Cum < p.Total/2 {
		t.Errorf("burnCPU %+v, total %d: want at least half the total, cumulative", f, p.Total)
	}
}

func TestCaptureProfileHeap(t *testing.T) {
	srv := pprofServer(t)
	for range 64 {
		heapSink = append(heapSink, make([]byte, 1<<16))
	}
	defer func() { heapSink = nil }()
	for _, base := range []string{srv.URL, srv.URL + "/debug/pprof/"} {
		p, err := CaptureProfile(t.Context(), base, "heap", 0)
		if err != nil {
			t.Fatal(err)
		}
		if p.SampleType != "inuse_space" || p.Unit != "bytes" || p.URL != srv.URL+"/debug/pprof/heap" {
			t.Errorf("base %s: sample type %s/%s, URL %s", base, p.SampleType, p.Unit, p.URL)
		}
		checkTop(t, p)
	}
}

func TestCaptureProfileErrors(t *testing.T) {
	off := httptest.NewServer(http.NotFoundHandler())
	defer off.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "this is not a profile")
	}))
	defer garbage.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer hang.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	tests := []struct {
		name, base, kind string
		timeout          time.Duration
		want             []string
	}{
		{"pprof off", off.URL, "heap", time.Minute, []string{off.URL + "/debug/pprof/heap", "404", "pprof mounted"}},
		{"garbage", garbage.URL, "heap", time.Minute, []string{garbage.URL + "/debug/pprof/heap", "parsing profile"}},
		{"timeout", hang.URL, "cpu", 100 * time.Millisecond, []string{hang.URL + "/debug/pprof/profile?seconds=1", "deadline exceeded"}},
		{"refused", closed.URL, "heap", time.Minute, []string{closed.URL + "/debug/pprof/heap", "refused"}},
		{"bad kind", off.URL, "goroutine", time.Minute, []string{off.URL, "neither cpu nor heap"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), tt.timeout)
			defer cancel()
			p, err := CaptureProfile(ctx, tt.base, tt.kind, time.Second)
			if err == nil {
				t.Fatalf("got profile %+v, want an error", p)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
