// Package kube holds the tests that run latlab against a real
// kube-apiserver and etcd, and build.sh, which builds the Kubernetes
// binaries they need from the Go module proxy. The tests find the binaries
// in $LATLAB_KUBE_BIN, or in build.sh's cache, and skip, saying how to
// build them, when neither has them.
package kube
