// Package kube holds the tests that run latlab against a real
// kube-apiserver and etcd, and build.sh, which builds the Kubernetes
// binaries they need from the Go module proxy. The tests find the binaries
// in $LATLAB_KUBE_BIN, or in build.sh's cache, and skip, saying how to
// build them, when neither has them.
//
// up.sh DIR starts a whole test cluster in the background: etcd,
// kube-apiserver, kube-controller-manager and podrunner, a test-only
// kubelet, scheduler and kube-proxy that runs each pod's containers as
// processes in a network namespace of the pod's own (see
// podrunner/doc.go); down.sh DIR stops it and removes all it made. The
// cluster tests (TestClusterServices, TestClusterFailures) run as root and
// each start a cluster of their own, side by side:
//
//	sudo go test ./test/kube -run Cluster -v
//
// Their clusters are torn down when they end, and also, through up.sh
// --owner, when the test binary dies before its cleanup runs.
package kube
