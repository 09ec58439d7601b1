package load

import (
	"math"
	"net"
	"runtime"
	"slices"
	"strings"
	"time"
)

// GrowAfter is the longest a request of the open loop waits for a kept
// connection, once the pool's are all busy, before one is opened for it:
// it waits as long as opening one lately took, at most this.
const GrowAfter = time.Millisecond

// Tuning of the event loops, as variables for benchmarks to vary.
var (
	growAfter = GrowAfter
	// loopRate is the rate one event loop takes on: past it, another
	// loop runs, up to one per CPU but one (see loopCount).
	loopRate = 100_000.0
	// batchMax bounds the least time between a loop's wake-ups for the
	// schedule while it batches: requests due in between go out
	// together, up to that late (counted as lag), so that the loop and
	// the target wake once per batch rather than once per request. A loop
	// batches only once it falls behind (see adapt).
	batchMax = 200 * time.Microsecond
	// batchLeast is the batch a loop that fell behind first takes, and
	// below which it stops batching.
	batchLeast = 25 * time.Microsecond
	// lateMark: a wake-up for the schedule this much later than the loop
	// meant counts as the loop falling behind.
	lateMark = 50 * time.Microsecond
	// adaptEvery is how often a loop weighs its wake-ups; it batches
	// only from batchWakes wake-ups a second, where they cost a share of
	// a CPU, not when a busy machine makes a few of them late.
	adaptEvery = 50 * time.Millisecond
	batchWakes = 10_000.0
	// lateMore and lateLess are the shares of late wake-ups above which
	// a loop batches more and below which it batches less.
	lateMore, lateLess = 0.02, 0.005
	// batchFrom and batchFull: from batchFrom requests a second a loop
	// batches whether or not it fell behind, up to batchMax at
	// batchFull, where waking once per request would take the CPU the
	// target needs.
	batchFrom, batchFull = 30_000.0, 60_000.0
	// deafAlways, for tests, has loops sleep through arrivals whatever
	// their batch.
	deafAlways = false
	// deafMax bounds a sleep through arrivals. A batching loop sleeps
	// through the arrival of responses until its next batch is due,
	// rather than waking for each: responses are stamped by the kernel as
	// they arrive, so latency loses nothing, and the loop and the target
	// each wake once per batch.
	deafMax = time.Millisecond
)

// batchFor returns the least time between wake-ups for the schedule of a
// loop whose share of the schedule peaks at rate per second.
func batchFor(rate float64) time.Duration {
	f := (rate - batchFrom) / (batchFull - batchFrom)
	return time.Duration(max(0, min(1, f)) * float64(batchMax))
}

// PoolService is the service time the open loop expects when it sizes its
// pool of connections opened before the run: rate × PoolService × 2, so
// that a target that answers within a millisecond never waits for a
// connection to open, even when twice the mean is in flight.
const PoolService = time.Millisecond

// eventLoops reports whether model, the load of cfg, can run on event
// loops: an open loop, a closed loop or a ramp of the lean HTTP/1.1 client
// over plain TCP or a unix socket, with requests whose address is known
// before the run.
func eventLoops(cfg *Config, model Model, o Options) bool {
	if o.HTTP2 || o.H2C || o.NetHTTP || !loopsSupported {
		return false
	}
	switch model.(type) {
	case Open, Closed, Ramp:
	default:
		return false
	}
	switch src := cfg.Source.(type) {
	case Static:
		for _, r := range src {
			if r.URL == nil || r.URL.Scheme != "http" {
				return false
			}
		}
		return len(src) > 0
	case *Scenario:
		return src.plainHTTP()
	}
	return false
}

// GCPercent returns the heap growth between collections (GOGC) that
// suits cfg's attack. On event loops, whose requests allocate next to
// nothing, it is 25: the heap is mostly the recorder's dense histograms,
// allocated once and alive to the end (some 7 MB at 2 CPUs), and at Go's
// default of 100 the little garbage there is would be let grow to their
// size, doubling the heap for no speed (50 connections for 5 s: 12
// collections instead of 3, about 0.3% more CPU per request). On
// goroutines (gRPC, HTTP/2, TLS, net/http) the client libraries allocate
// dozens of objects per request, and 25 would have the collector take a
// third of the CPU: 400 (gRPC, 50 calls in flight, latlab on one CPU and
// the server on the other: about 27,000 calls/s at 25, 42,000 at 400, for
// 74 MB of memory).
func GCPercent(cfg Config) int {
	m := cfg.Model
	if _, ok := m.(Sequential); ok {
		m = Closed{Workers: 1}
	}
	if cfg.Source != nil && eventLoops(&cfg, m, cfg.Transport) {
		return 25
	}
	return 400
}

// closedLoops returns how many event loops a closed loop of workers runs
// on: threads when asked, else, for a target on this machine, which needs
// CPUs of its own to answer, one per four CPUs the Go scheduler may use
// (at least one), and for a target elsewhere one per CPU but one, left to
// the recorder, the collector and the kernel's share of the network; never
// more than one per worker.
func closedLoops(workers int, local bool, threads int) int {
	procs := runtime.GOMAXPROCS(0)
	n := max(1, procs-1)
	switch {
	case threads > 0:
		n = threads
	case local:
		n = max(1, procs/4)
	}
	return max(1, min(n, workers))
}

// loopCount returns how many event loops an open loop runs on: one per loopRate of the
// schedule's peak rate, at most one per CPU the Go scheduler may use but
// one, and one per connection; one when the schedule cannot be split. A
// loop that keeps up at a high rate takes a CPU whole, and the CPU left
// over runs the rest: the recorder, the collector, the kernel's share of
// the network and, often, the target. On two CPUs beside nginx, one loop
// kept 140,000/s with latency p99 under 10 ms in three runs of three; two
// loops, fighting nginx for its CPU, read 8 to 39 ms.
//
// threads, when positive, is the count the user asked for, within the same
// bounds but the CPUs.
func loopCount(p Pacer, limit, threads int) int {
	if _, ok := fork(p); !ok {
		return 1
	}
	n := min(int(math.Ceil(peakRate(p)/loopRate)), runtime.GOMAXPROCS(0)-1)
	if threads > 0 {
		n = threads
	}
	return max(min(n, limit), 1)
}

// fork returns a copy of p that yields the same schedule from its start,
// to be read by one goroutine; false when p's type is not known to be safe
// to read so.
func fork(p Pacer) (Pacer, bool) {
	switch p := p.(type) {
	case Constant, Stages:
		return p, true
	case *Poisson:
		switch p.Of.(type) {
		case Constant, Stages:
			return &Poisson{Of: p.Of, Seed: p.Seed}, true
		}
	case Sharded:
		if q, ok := fork(p.Pacer); ok {
			p.Pacer = q
			return p, true
		}
	}
	return nil, false
}

// peakRate returns the highest rate p asks for.
func peakRate(p Pacer) float64 {
	switch p := p.(type) {
	case Constant:
		return p.Rate
	case Stages:
		r := p.Start
		for _, s := range p.Steps {
			r = math.Max(r, s.Target)
		}
		return r
	case *Poisson:
		return peakRate(p.Of)
	case Sharded:
		return peakRate(p.Pacer) / float64(max(p.Count, 1))
	}
	return p.Mean()
}

// poolSize returns the size of an open loop's pool of connections at p:
// asked when positive, else rate × PoolService × 2, at least one per loop;
// within the cap.
func poolSize(asked int, p Pacer, loops, limit int) int {
	if asked > 0 {
		return min(asked, limit)
	}
	n := math.Ceil(peakRate(p) * PoolService.Seconds() * 2)
	if math.IsNaN(n) || n > float64(limit) {
		return limit
	}
	return min(max(int(n), loops), limit)
}

// onThisMachine reports whether every one of keys (dial keys) reaches a
// server on this machine: a unix socket, a loopback address, localhost, or
// an address of one of this machine's interfaces.
func onThisMachine(keys []string, o Options) bool {
	if o.UnixSocket != "" {
		return true
	}
	var own []net.Addr
	for _, k := range keys {
		_, hostport, _ := strings.Cut(k, "://")
		hostport, _, _ = strings.Cut(hostport, " ")
		host, _, err := net.SplitHostPort(hostport)
		if err != nil {
			return false
		}
		if host == "localhost" {
			continue
		}
		ip := net.ParseIP(host)
		if ip == nil {
			return false
		}
		if ip.IsLoopback() {
			continue
		}
		if own == nil {
			if own, err = net.InterfaceAddrs(); err != nil {
				return false
			}
		}
		if !slices.ContainsFunc(own, func(a net.Addr) bool {
			n, ok := a.(*net.IPNet)
			return ok && n.IP.Equal(ip)
		}) {
			return false
		}
	}
	return len(keys) > 0
}
