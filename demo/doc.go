// Package demo is latlab's guided tour: a small study that runs on one
// machine with nothing installed but latlab, from a local service graph to
// an HTML report, in a few minutes.
//
// Run writes its topologies, requests and experiment specs (embedded in
// this package, see Files) into a folder, then runs two experiments into
// one results database there:
//
//   - demo: the variants chain (root → branch → leaf, 2 ms of CPU each),
//     chain-proxy (one more hop, a pure reverse proxy) and chain-filter
//     (fair-queue admission with each filter's own latency tracked and a
//     10 ms delay for user bob), in open loop at three rates, six times
//     each with warm-up, in a shuffled order: the runs the report's
//     intervals need, each long enough for the p90 the headline reads;
//   - demo-ramp: a closed-loop step-up ramp that drives chain-filter to
//     300 requests in flight, filling the fair queue's seats and queues.
//
// It then writes the report of each as latlab report would (report.html,
// and ramp.html with its flagged run counted), and prints the headline: the
// overhead of each variant against chain at p50 and p90 with 95%
// intervals, and the ramp's latency at the top. Quick runs the same
// variants and ramp with fewer rates, fewer repetitions and shorter runs,
// in under 90 s, for CI; its headline and report say that three runs a
// level are too few for any interval. When runs were flagged and left
// out, both say how many, what the machine probe measured during them
// (how busy the machine was) and what to do.
//
// ExampleRun runs the demo into a folder and says how to resume it.
//
// The files written are plain latlab inputs: "latlab run DIR/demo.yaml -o
// DIR/results.db" runs the study again, and running the demo again into
// the same folder resumes after the last finished trial. Every graph node
// Run starts dies with the process, even when it is killed.
//
// In latlab's layout (docs/internals.md, "Layout") demo sits above
// experiment and report, which it drives, and below cmd/latlab, whose "latlab demo" calls Run.
//
// Run may be called from several goroutines only with different folders.
package demo
