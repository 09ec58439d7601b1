// Package exepages gives back to the system the pages of the running
// executable that start-up touched and the work after it does not use.
//
// latlab is one 46 MB binary: the whole CLI, the graph's node server, the
// results database's SQLite, the Kubernetes manifests, OpenTelemetry and
// Prometheus. Every package's initialisation runs at start-up, whatever the
// command, and the kernel maps each page of the binary it reads together
// with its neighbours (fault-around, 64 KB at a time): by the time a
// command starts, some 19 MB of the binary are resident in the process,
// counted in its RSS, of which a load generator's loop uses a few. Release
// unmaps the read-only pages of the binary from the process; they stay in
// the page cache, and what the process goes on to use is mapped again, on
// its first touch, at the cost of a minor fault. No content is lost: only
// mappings no write has ever changed are released.
package exepages
