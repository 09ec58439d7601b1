package load

import (
	"bufio"
	"context"
	"net"
	"net/url"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

func BenchmarkPacer(b *testing.B) {
	pacers := []struct {
		name string
		p    func() Pacer
	}{
		{"constant", func() Pacer { return Constant{Rate: 20000} }},
		{"stages", func() Pacer {
			return Stages{Steps: []Stage{{30 * time.Second, 100}, {60 * time.Second, 1000}, {30 * time.Second, 1000}}}
		}},
		{"poisson", func() Pacer { return &Poisson{Of: Constant{Rate: 20000}, Seed: 1} }},
	}
	for _, pc := range pacers {
		b.Run(pc.name, func(b *testing.B) {
			b.ReportAllocs()
			p := pc.p()
			var i int64
			for b.Loop() {
				p.Due(i % 100000)
				i++
			}
		})
	}
}

// fastServer answers every request on a connection with a fixed response,
// as fast as it can parse request heads.
func fastServer(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\nok\n")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					// Request heads end with an empty line; these have no body.
					for {
						l, err := br.ReadSlice('\n')
						if err != nil {
							return
						}
						if len(l) <= 2 {
							break
						}
					}
					if _, err := c.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

// BenchmarkRoundTrip is one HTTP/1.1 request and response on a kept-alive
// loopback connection, lean client against net/http.
func BenchmarkRoundTrip(b *testing.B) {
	target := fastServer(b)
	for _, cl := range clients {
		b.Run(cl.name, func(b *testing.B) {
			tr, err := NewTransport(cl.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			req := &Request{Method: "GET"}
			req.URL = mustParse(b, target)
			prepare(req, cl.opts)
			s := tr.Session()
			defer s.Close()
			ctx := context.Background()
			var out record.Sample
			b.ReportAllocs()
			for b.Loop() {
				out = record.Sample{}
				s.Do(ctx, req, &out)
				if out.Code != 200 {
					b.Fatalf("code %d, error %v", out.Code, out.Err)
				}
			}
		})
	}
}

// BenchmarkAttackClosed is the whole engine: 8 closed-loop workers against
// the fast server, recording every request; what counts is the time and
// the CPU each request costs the process (client and in-process server
// together), and what it allocates.
func BenchmarkAttackClosed(b *testing.B) {
	req := &Request{Method: "GET", URL: mustParse(b, fastServer(b))}
	const count = 10000
	var ms0, ms1 runtime.MemStats
	var ru0, ru1 syscall.Rusage
	runtime.ReadMemStats(&ms0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		res, err := Attack(context.Background(), Config{Source: Static{req}, Model: Closed{Workers: 8}, Count: count})
		if err != nil || res.Codes[200] != count {
			b.Fatalf("err %v, codes %v", err, res.Codes)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	runtime.ReadMemStats(&ms1)
	n := float64(int64(b.N) * count)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/request")
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/request")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/request")
}

// BenchmarkAttackOpen is the open loop's dispatch of each request against
// the fast server: saturated (due faster than it can send, 8 in flight),
// and at 20,000 requests per second, where what counts is the CPU each
// request costs the process (client and in-process server together).
func BenchmarkAttackOpen(b *testing.B) {
	req := &Request{Method: "GET", URL: mustParse(b, fastServer(b))}
	for _, bc := range []struct {
		name  string
		rate  float64
		count int64
	}{
		{"saturated", 1e7, 10000},
		{"20k", 20000, 2000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var ms0, ms1 runtime.MemStats
			var ru0, ru1 syscall.Rusage
			runtime.ReadMemStats(&ms0)
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				res, err := Attack(context.Background(), Config{Source: Static{req},
					Model: Open{Pacer: Constant{Rate: bc.rate}, MaxInFlight: 8}, Count: bc.count})
				if err != nil || res.Codes[200] != bc.count {
					b.Fatalf("err %v, codes %v", err, res.Codes)
				}
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			runtime.ReadMemStats(&ms1)
			n := float64(int64(b.N) * bc.count)
			cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/request")
			b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/request")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/request")
		})
	}
}

func mustParse(b *testing.B, raw string) *url.URL {
	b.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	return u
}
