// Package load generates HTTP and gRPC load and measures it.
//
// One engine runs every load model: open loop at a constant rate or along
// stages (constant or Poisson arrivals), closed loop with a fixed number of
// workers, a step-up ramp of workers, and sequential. Requests come from a
// URL, a vegeta-format targets file or a scenario of templated steps. Two
// transports carry them: a lean HTTP/1.1 client of its own (pooled
// connections, no allocation per request) and net/http for HTTP/2.
//
// The load of the lean client over plain TCP runs on event loops
// (evengine_linux.go starts them and opens their pool, evloop_linux.go
// keeps the schedule, evclosed_linux.go a closed loop's workers,
// evpool_linux.go the connections, evconn_linux.go one connection's
// request): each is one thread that owns its connections. In an open loop
// it takes every nth request of the schedule, waits on epoll until its
// next request is due or a response arrives, and sends every request due
// at a wake-up in one pass; only a loop that falls behind batches its
// wake-ups. Connections are opened before the load (the pool), grow ahead
// of need once answers tell the target's service time and as the target
// takes them, and are kept from the warm-up through the measured phase. In
// a closed loop or a ramp it takes some of the workers, and begins a
// worker's next iteration on the connection its last one freed. HTTP/2,
// TLS and net/http run on goroutines: a worker per request in flight.
//
// A request whose URL is grpc:// or grpcs:// is a gRPC call (rpc.go): its
// method's types come from .proto files (rpc_types.go, compiled with
// protocompile) or the server's reflection service, its message is
// encoded once before the load, and its status is counted as a code
// (record.GRPCCode). gRPC calls run on goroutines, beside HTTP requests
// when a scenario mixes the two.
//
// Latency is measured from each request's intended send time, so a slow
// target cannot hide its queueing (coordinated omission); service time from
// its actual send; lag is the difference.
//
// A Config says what to send (Source), how (Model, Transport) and for how
// long (Duration or Count); Attack runs it and returns the record.Result.
// An Attacker runs its phases one by one, for callers that warm up at
// another rate or start the measured load at an agreed instant (a trial,
// a shard): a warm-up and the measured load share its connections. A
// phase's start is fixed once everything it sets up is ready, so nothing
// delays the first request.
// The package's Example attacks a server at 1,000 requests per second.
//
// A load may be sent by several generators (processes or pods) started
// together: Config.Shard makes an attack send one shard's part, dealt so
// that the shards' results merge into the load asked. Request i of an open
// loop's schedule goes to shard i mod N (Sharded), with the schedule's
// Poisson arrivals the same in every shard; a closed loop's workers, each
// burst of a ramp and a request count are split as evenly as whole numbers
// allow, the first shards taking one more. Sources see indices of the
// whole load, so targets taken round robin go as they would unsharded.
// A sequential load cannot be split.
//
// Attack is safe to call from several goroutines; a Transport and its
// Sessions follow the contracts on their methods.
package load
