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
// A Topology is read-only once parsed and safe to share. A Node serves
// requests concurrently.
package graph
