// Command truthserver is a target whose service time is known: each
// request to / waits a time drawn uniformly from [-min, -max] (a sleep,
// not CPU), then answers "ok\n". It times each request twice, into two
// HdrHistograms:
//
//   - the handler time, from the request's arrival at the handler to the
//     answer's write: what the service itself took;
//   - the wire time, from the moment the request reached the server's
//     socket to the moment its answer is written (see wire_linux.go): the
//     handler and every wait around it, for the Go scheduler or a CPU.
//
// The wire time is the truth a load generator's latency should read on
// loopback, less the floor between the two; the handler time says how much
// of it the service took.
//
//	GET /truth          both since the last reset, as JSON
//	GET /truth?reset=1  the same, then starts afresh
//
// -min 0 -max 0 answers at once. bench/truth.sh starts it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// connKey finds a request's connection in its context.
type connKey struct{}

// truth is the histogram of handler times, in nanoseconds.
type truth struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(time.Minute), 3) }

func (t *truth) add(d time.Duration) {
	t.mu.Lock()
	_ = t.h.RecordValue(int64(d))
	t.mu.Unlock()
}

// report is what /truth answers: quantiles of the handler time in µs, and
// of the wire time under "wire".
type report struct {
	Wire   *report `json:"wire,omitempty"`
	Count  int64   `json:"count"`
	MeanUS float64 `json:"mean_us"`
	P50US  float64 `json:"p50_us"`
	P90US  float64 `json:"p90_us"`
	P99US  float64 `json:"p99_us"`
	P999US float64 `json:"p999_us"`
	MaxUS  float64 `json:"max_us"`
}

func (t *truth) read(reset bool) report {
	t.mu.Lock()
	h := t.h
	if reset {
		t.h = newHist()
	}
	t.mu.Unlock()
	us := func(v int64) float64 { return float64(v) / 1e3 }
	return report{Count: h.TotalCount(), MeanUS: h.Mean() / 1e3, P50US: us(h.ValueAtQuantile(50)),
		P90US: us(h.ValueAtQuantile(90)), P99US: us(h.ValueAtQuantile(99)), P999US: us(h.ValueAtQuantile(99.9)), MaxUS: us(h.Max())}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	lo := flag.Duration("min", time.Millisecond, "least service time")
	hi := flag.Duration("max", 3*time.Millisecond, "greatest service time")
	flag.Parse()
	if *hi < *lo {
		log.Fatalf("-max %s is below -min %s", *hi, *lo)
	}
	t, wire := &truth{h: newHist()}, &truth{h: newHist()}
	ok := []byte("ok\n")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if *hi > 0 {
			d := *lo + time.Duration(rand.Int64N(int64(*hi-*lo)+1))
			// A timer can wake late on a busy or idle virtual CPU:
			// the truth is what the handler took, whatever it was.
			time.Sleep(d)
		}
		if c, ok := r.Context().Value(connKey{}).(*stampConn); ok {
			c.answer.Store(wire)
		}
		w.Header().Set("Content-Length", "3")
		_, _ = w.Write(ok)
		t.add(time.Since(start))
	})
	mux.HandleFunc("/truth", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		reset := r.URL.Query().Get("reset") != ""
		rep, wr := t.read(reset), wire.read(reset)
		rep.Wire = &wr
		_ = json.NewEncoder(w).Encode(rep)
	})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	// The address on stdout, for the script that started it.
	os.Stdout.WriteString("http://" + ln.Addr().String() + "/\n")
	srv := &http.Server{Handler: mux, ConnContext: func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}}
	log.Fatal(srv.Serve(stampListener{ln}))
}
