package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsLean holds latlab to the Kubernetes client code it uses: the
// API groups package cluster reads, over client-go's REST and dynamic
// clients. client-go's Clientset, its typed group clients and its
// discovery client, and the metrics API's clientset, each link the scheme
// of every API group they know, which every run of latlab would register
// at start-up, latlab version too.
func TestDepsLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	banned := []string{"k8s.io/client-go/kubernetes", "k8s.io/client-go/discovery", "k8s.io/metrics/pkg/client"}
	isBanned := func(pkg string) bool {
		for _, b := range banned {
			if pkg == b || strings.HasPrefix(pkg, b+"/") {
				return true
			}
		}
		return false
	}
	var n int
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), " ")
		n++
		if isBanned(pkg) {
			continue // reported where it is imported from
		}
		for imp := range strings.FieldsSeq(imports) {
			if isBanned(imp) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
	if !strings.Contains(string(out), "\ngithub.com/latlab/latlab/cluster ") {
		t.Errorf("go list lists %d packages, not package cluster", n)
	}
}
