// Package middleware is a set of http.Handler decorators — filters — for any
// Go server, and the filters latlab's synthetic service nodes run:
//
//   - Passthrough does nothing; it is the floor other filters are measured
//     against.
//   - Track measures one filter's own latency, from the moment a request
//     enters it (A) to the moment it calls the next handler (B), the B−A of
//     the kube-apiserver API Priority and Fairness filter-latency study.
//   - Delay holds one user's requests for a fixed time: the study's
//     artificial delay adder, a way to keep many requests in flight.
//   - FairQueue is an admission filter in the spirit of API Priority and
//     Fairness: priority levels with shares of a concurrency limit, flows
//     shuffle-sharded onto queues, round-robin dispatch, 429 with
//     Retry-After when a queue is full.
//
// A Filter is a func(next http.Handler) http.Handler; Chain composes them,
// outermost first. Metrics holds the Prometheus collectors (see Metrics for
// names and buckets); a nil *Metrics records nothing.
//
// # gRPC
//
// Each filter has a gRPC server form, an Interceptor: a unary and a stream
// server interceptor that do the same thing. PassthroughRPC, TrackRPC and
// DelayRPC mirror Passthrough, Track and Delay; FairQueue.Interceptor admits
// calls through the same seats and queues as FairQueue.Filter; ChainRPC
// composes them, outermost first. The user is read from the incoming
// metadata key x-remote-user, or the header named, in lower case. A call
// the fair queue refuses ends with status ResourceExhausted and a
// retry-after header; one whose context ends while DelayRPC holds it, with
// Unavailable. Install an Interceptor with grpc.UnaryInterceptor(ic.Unary)
// and grpc.StreamInterceptor(ic.Stream); every Interceptor is safe for
// concurrent use.
//
// # Example
//
// The package's Example is a server that delays user "slow" by 10 ms,
// admits requests through a fair queue with two priority levels, and
// measures both filters; ExampleTrack and ExampleNewFairQueue show each
// filter alone.
//
// The user is read from the X-Remote-User header unless another is named.
// It is trusted as sent: put an authenticating filter in front if clients
// are not. Scrape with native histograms enabled (Prometheus
// --enable-feature=native-histograms, or scrape_native_histograms) to get
// them; the classic buckets are always there.
//
// # Concurrency
//
// Every Filter, and every handler a Filter returns, is safe for concurrent
// use as long as the handler it wraps is. Metrics and FairQueue are safe for
// concurrent use; a FairQueue's seats and queues are shared by every handler
// its Filter builds. Building filters (Chain, Track, Delay, NewFairQueue) may
// happen at any time; Metrics.Register must finish before its Metrics is
// handed to Track or NewFairQueue.
package middleware
