package kube

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/cluster"
)

// TestClusterPodMetrics reads the pods' CPU and memory from the test
// cluster's metrics API, through the aggregator as from metrics-server:
// with cluster.PodMetrics and with kubectl top; and without the API, the
// error says the cluster has none.
func TestClusterPodMetrics(t *testing.T) {
	tc := upCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	kc := filepath.Join(tc.dir, "kubeconfig")
	kubectl := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kc}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	ns := tc.namespace(t, "usage")
	manifest := filepath.Join(t.TempDir(), "busy.yaml")
	writeFile(t, manifest, []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: busy, namespace: usage}
spec:
  selector: {matchLabels: {app: busy}}
  template:
    metadata: {labels: {app: busy}}
    spec:
      containers:
        - name: spin
          image: `+image+`
          command: [sh, -c, "while :; do :; done"]
          resources: {limits: {cpu: 500m, memory: 64Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: idle, namespace: usage, labels: {app: idle}}
spec:
  containers: [{name: sleep, image: `+image+`, command: [sleep, "600"]}]
`))
	if out, err := kubectl("apply", "-f", manifest); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	poll(t, 2*time.Minute, "the metrics APIService available", func() (bool, string) {
		out, err := kubectl("get", "apiservice", "v1beta1.metrics.k8s.io", "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status} {.status.conditions[?(@.type=="Available")].message}`)
		return err == nil && strings.HasPrefix(out, "True"), fmt.Sprint(out, err)
	})

	c, err := cluster.Connect(cluster.Options{Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	var busy cluster.PodUsage
	poll(t, 2*time.Minute, "the busy pod's usage", func() (bool, string) {
		us, err := c.PodMetrics(ctx, ns, "app=busy")
		if err != nil {
			return false, err.Error()
		}
		if len(us) != 1 || us[0].CPU <= 0 {
			return false, fmt.Sprintf("%+v", us)
		}
		busy = us[0]
		return true, ""
	})
	if !strings.HasPrefix(busy.Pod, "busy-") || busy.Workload != "busy" || !strings.HasPrefix(busy.Node, "node-") {
		t.Errorf("usage %+v; want the pod busy-..., workload busy, on a node", busy)
	}
	// No cgroups here: a busy loop gets up to a core, however small its
	// share of it on a loaded machine.
	if busy.CPU > 1.5 || busy.Memory <= 0 || busy.Window <= 0 || time.Since(busy.Time) > time.Minute {
		t.Errorf("usage %+v; want at most a core, some memory, over a recent window", busy)
	}
	if busy.CPULimit != 0.5 || busy.MemoryLimit != 64<<20 || busy.NodeCPU != 4 {
		t.Errorf("limits %v cores, %d bytes, node %v cores; want 0.5, 64Mi, 4", busy.CPULimit, busy.MemoryLimit, busy.NodeCPU)
	}
	poll(t, time.Minute, "kubectl top pod", func() (bool, string) {
		out, err := kubectl("top", "pod", "-n", ns, "--no-headers")
		return err == nil && strings.Contains(out, busy.Pod) && strings.Contains(out, "idle"), fmt.Sprint(out, err)
	})
	if out, err := kubectl("top", "node", "--no-headers"); err != nil || !strings.Contains(out, "node-0") {
		t.Errorf("kubectl top node: %v\n%s", err, out)
	}

	// A cluster without metrics-server: no APIService for the group.
	if out, err := kubectl("delete", "apiservice", "v1beta1.metrics.k8s.io"); err != nil {
		t.Fatalf("kubectl delete apiservice: %v\n%s", err, out)
	}
	poll(t, time.Minute, "PodMetrics saying there is no metrics API", func() (bool, string) {
		_, err := c.PodMetrics(ctx, ns, "")
		return errors.Is(err, cluster.ErrNoMetricsAPI), fmt.Sprint(err)
	})
}
