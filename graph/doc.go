// Package graph is latlab's synthetic system: a topology of services that do
// calibrated work (CPU busywork, a prime sieve, sleeps, forks, stress-ng
// jobs, payloads) and call each other in any DAG, behind a chain of
// measured filters.
//
// A topology is read from YAML (ReadTopology), each service runs as a node
// (NewNode, or "latlab serve"), a whole graph starts as local processes
// ("latlab graph up") or is written out as Kubernetes manifests.
//
// Every node measures its own work against what was asked and reports it in
// Prometheus histograms and a Server-Timing header, so a latency can be split
// into work, hops and queueing.
//
// A node refuses what it does not understand rather than do default work in
// its place: a query parameter its route does not take, one given twice, or
// a pair holding ";" (only "&" separates parameters) is 400 naming it. What
// a request may ask for is bounded by Caps, and a refusal names the cap: a
// query value over its cap is 400, a body over MaxBody 413 (at once when
// its Content-Length says so), an object beyond MaxObjects or MaxStored
// 507, a load job beyond MaxLoads 429, and an upload that finds none of
// MaxUploads free within MaxUploadWait 503 with Retry-After. An upload
// reserves its bytes against MaxStored before its body is read, so object
// bytes, stored or being received, never exceed MaxStored: a node's memory
// is bounded by its caps at any concurrency. /healthz, /metrics and
// /debug/pprof/ are the standard handlers and take what those take.
//
// A Topology is read-only once parsed and safe to share. A Node serves
// requests concurrently.
package graph
