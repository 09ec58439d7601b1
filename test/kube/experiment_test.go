package kube

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/store"
)

// The topologies of the experiment tests: a chain of two, and the same
// chain behind a proxy.
const (
	chainGraph = `services:
  - name: front
    script: [{call: back}]
  - name: back
    script: [{payload: 64}]
`
	proxyGraph = `services:
  - name: gateway
    entry: true
    proxy: front
  - name: front
    script: [{call: back}]
  - name: back
    script: [{payload: 64}]
`
)

// experimentDir writes the graphs and spec of an experiment on the test
// cluster into a folder of its own and returns the spec's path. load is
// the spec's load mapping, without on: and image:, which it adds.
func experimentDir(t *testing.T, name, load, rest string) string {
	return experimentIn(t, "", name, load, rest)
}

// experimentIn is experimentDir for an experiment in namespace ns, ""
// meaning the kubeconfig's.
func experimentIn(t *testing.T, ns, name, load, rest string) string {
	t.Helper()
	dir := t.TempDir()
	nsField := ""
	if ns != "" {
		nsField = ", namespace: " + ns
	}
	writeFile(t, filepath.Join(dir, "chain.yaml"), []byte(chainGraph))
	writeFile(t, filepath.Join(dir, "chain-proxy.yaml"), []byte(proxyGraph))
	spec := filepath.Join(dir, "spec.yaml")
	writeFile(t, spec, []byte(`version: 1
name: `+name+`
kubernetes: {image: `+image+nsField+`}
variants:
  - {name: chain, graph: chain.yaml, on: kubernetes}
  - {name: chain-proxy, graph: chain-proxy.yaml, on: kubernetes}
load: {on: kubernetes, `+load+`}
`+rest))
	return spec
}

// latlabRun runs latlab run on tc with args and returns its output and
// exit error.
func (c *testCluster) latlabRun(t *testing.T, ctx context.Context, args ...string) (string, error) {
	t.Helper()
	cmd, out := c.startRun(t, ctx, args...)
	err := cmd.Wait()
	return out.String(), err
}

// startRun starts latlab run on tc with args, its output going to the
// buffer it returns, to read once the command has ended.
func (c *testCluster) startRun(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	bin, err := latlabBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"run", "--kubeconfig", filepath.Join(c.dir, "kubeconfig")}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// runs returns the runs of the only experiment in the results database db.
func runs(t *testing.T, db string) []store.Run {
	t.Helper()
	ctx := context.Background()
	d, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	exps, err := d.Experiments(ctx)
	if err != nil || len(exps) != 1 {
		t.Fatalf("experiments %v, %v; want one", exps, err)
	}
	rs, err := d.Runs(ctx, exps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// probePoints returns the probe points of run id in db.
func probePoints(t *testing.T, db string, id int64) []store.ProbePoint {
	return readRun(t, db, id, (*store.DB).Probes)
}

// profiles returns the profiles of run id in db.
func profiles(t *testing.T, db string, id int64) []store.Profile {
	return readRun(t, db, id, (*store.DB).Profiles)
}

// readRun reads what read returns of run id from the results database db.
func readRun[T any](t *testing.T, db string, id int64, read func(*store.DB, context.Context, int64) ([]T, error)) []T {
	t.Helper()
	ctx := context.Background()
	d, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := read(d, ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// labelled returns what latlab left in the cluster, as kubectl lists it.
func (c *testCluster) labelled(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("kubectl", "--kubeconfig", filepath.Join(c.dir, "kubeconfig"), "get", "all,cm,jobs,ns",
		"-A", "-l", cluster.LabelManagedBy+"="+cluster.ManagedBy, "-o", "name").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// nothingLeft fails t when latlab left anything of its own in c.
func (c *testCluster) nothingLeft(t *testing.T) {
	t.Helper()
	if left := c.labelled(t); left != "" {
		t.Errorf("left in the cluster:\n%s", left)
	}
}

// TestKubeExperiment runs an experiment whose variants and load are on
// the test cluster: two graphs deployed from their topologies, the load
// from a pod, the nodes' metrics scraped through the API server; then a
// load pod that cannot start, and a variant that never becomes ready.
// Each leaves nothing behind.
func TestKubeExperiment(t *testing.T) {
	tc := upCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	t.Run("graphs", func(t *testing.T) {
		spec := experimentDir(t, "kube-graphs", "mode: open, rates: [40], duration: 3s",
			"warmup: {duration: 500ms}\nruns: 2\nprobes: {metrics: {interval: 500ms, window: 1s}, traces: true, pprof: {at: 10%, seconds: 1}}\n")
		db := filepath.Join(t.TempDir(), "results.db")
		out, err := tc.latlabRun(t, ctx, spec, "-o", db)
		if err != nil {
			t.Fatalf("latlab run: %v\n%s", err, out)
		}
		rs := runs(t, db)
		if len(rs) != 4 {
			t.Fatalf("%d runs, want 4:\n%s", len(rs), out)
		}
		pods := map[string]map[string]bool{} // by variant, the workloads whose pods' usage was read
		profiled := map[string]bool{}        // by variant, a CPU profile of its entry
		for _, r := range rs {
			if r.Status != store.Done || r.Summary == nil || r.Summary.Requests != 120 || len(r.Summary.Errors) != 0 || r.Warmup == nil {
				t.Errorf("run %d (%s): status %s, summary %+v, warm-up %v; want 120 requests without errors after a warm-up", r.ID, r.Variant, r.Status, r.Summary, r.Warmup != nil)
				continue
			}
			// The per-node metrics came through the pod proxy, by service.
			// The spans came to the load pod, by the experiment's Service.
			services, traced := map[string]bool{}, map[string]bool{}
			for _, p := range probePoints(t, db, r.ID) {
				if p.Probe == "metrics" && strings.HasPrefix(p.Series, "latlab_server_request_duration_seconds:") {
					services[p.Labels["service"]] = true
				}
				if p.Probe == "traces" {
					traced[p.Labels["callee"]] = true
				}
				if p.Probe == "process" && p.Series == "working_set_bytes" && p.Value > 0 {
					if pods[r.Variant] == nil {
						pods[r.Variant] = map[string]bool{}
					}
					pods[r.Variant][p.Labels["comm"]] = true
				}
				if p.Probe == "process" && p.Series == "up" && p.Value == 0 {
					t.Errorf("run %d (%s): the pods' metrics failed: %v", r.ID, r.Variant, p.Labels)
				}
			}
			// Its entry's profile came through the API server's service
			// proxy; one cut short by the end of a run on a busy machine
			// is not kept, so the test asks for one of each variant's.
			for _, p := range profiles(t, db, r.ID) {
				if p.Kind == "cpu" && len(p.Data) > 0 && strings.HasPrefix(p.Target, "http://"+r.Variant+"-") {
					profiled[r.Variant] = true
				}
			}
			want := []string{"back", "front"}
			if r.Variant == "chain-proxy" {
				want = append(want, "gateway")
			}
			for _, s := range want {
				if !services[s] {
					t.Errorf("run %d (%s): no server latency scraped from %s; got %v", r.ID, r.Variant, s, services)
				}
				if !traced[s] {
					t.Errorf("run %d (%s): no hop of %s from its spans; got %v", r.ID, r.Variant, s, traced)
				}
			}
		}
		for _, v := range []string{"chain", "chain-proxy"} {
			if !profiled[v] {
				t.Errorf("%s: no CPU profile of its entry in either run:\n%s", v, out)
			}
		}
		// The pods' CPU and memory came from the metrics API, read once a
		// second, for every node of each variant over its two runs.
		for variant, nodes := range map[string][]string{"chain": {"back", "front"}, "chain-proxy": {"back", "front", "gateway"}} {
			for _, n := range nodes {
				if !pods[variant][variant+"-"+n] {
					t.Errorf("%s: no usage of the pods of %s-%s from the metrics API; got %v", variant, variant, n, pods[variant])
				}
			}
		}
		tc.nothingLeft(t)
	})

	t.Run("load pod cannot start", func(t *testing.T) {
		spec := experimentDir(t, "kube-noimage", "image: example.invalid/none:1, mode: open, rates: [10], duration: 1s", "")
		db := filepath.Join(t.TempDir(), "results.db")
		out, err := tc.latlabRun(t, ctx, spec, "-o", db)
		if err == nil {
			t.Fatalf("latlab run succeeded with a load image nobody has:\n%s", out)
		}
		rs := runs(t, db)
		if len(rs) != 2 {
			t.Fatalf("%d runs, want both trials tried:\n%s", len(rs), out)
		}
		for _, r := range rs {
			if r.Status != store.Failed || len(r.Flags) != 1 || r.Flags[0].Name != "load_pod_image" || !strings.Contains(r.Error, "example.invalid/none:1") {
				t.Errorf("run %d: status %s, flags %v, error %q; want failed, load_pod_image", r.ID, r.Status, r.Flags, r.Error)
			}
		}
		tc.nothingLeft(t)
	})

	t.Run("never ready", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "bad.yaml"), []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: bad}
spec:
  selector: {matchLabels: {app: bad}}
  template:
    metadata: {labels: {app: bad}}
    spec:
      containers: [{name: server, image: `+image+`, args: [no-such-command]}]
---
apiVersion: v1
kind: Service
metadata: {name: bad}
spec:
  selector: {app: bad}
  ports: [{port: 8080}]
`))
		spec := filepath.Join(dir, "spec.yaml")
		writeFile(t, spec, []byte(`version: 1
name: kube-bad
kubernetes: {image: `+image+`}
variants:
  - name: bad
    target: http://bad:8080/
    kubernetes: {manifests: bad.yaml}
    ready_timeout: 20s
load: {on: kubernetes, mode: open, rates: [10], duration: 1s}
`))
		db := filepath.Join(dir, "results.db")
		start := time.Now()
		out, err := tc.latlabRun(t, ctx, spec, "-o", db)
		took := time.Since(start)
		if err == nil {
			t.Fatalf("latlab run succeeded with a variant that never starts:\n%s", out)
		}
		rs := runs(t, db)
		if len(rs) != 1 || rs[0].Status != store.Failed {
			t.Fatalf("runs %+v, want one failed:\n%s", rs, out)
		}
		msg := rs[0].Error
		for _, want := range []string{"variant bad: ", "not ready after 20s", "deployment/bad", "pod bad-", "CrashLoopBackOff", "last exit 2"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the error lacks %q:\n%s", want, msg)
			}
		}
		// The timeout, then the deletion; not much more.
		if took > 20*time.Second+2*time.Minute {
			t.Errorf("latlab run took %s to give up on a 20s ready timeout", took)
		}
		tc.nothingLeft(t)
	})

	t.Run("interrupted", func(t *testing.T) {
		spec := experimentDir(t, "kube-interrupted", "mode: open, rates: [20], duration: 60s", "runs: 3\n")
		db := filepath.Join(t.TempDir(), "results.db")
		cmd, out := tc.startRun(t, ctx, spec, "-o", db)
		// Once a load pod runs, the first trial is under way: Ctrl-C.
		poll(t, 3*time.Minute, "a load pod running", func() (bool, string) {
			pods, err := tc.cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: cluster.LabelRole + "=" + cluster.RoleLoad})
			if err != nil {
				return false, err.Error()
			}
			for _, p := range pods.Items {
				if p.Status.PodIP != "" && p.Status.Phase == "Running" {
					return true, ""
				}
			}
			return false, "no load pod running yet"
		})
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("latlab run after Ctrl-C: %v, want exit 130\n%s", err, out.String())
		}
		if left := tc.labelled(t); left != "" {
			t.Errorf("left in the cluster after Ctrl-C:\n%s\nlatlab run said:\n%s", left, out.String())
		}
		rs := runs(t, db)
		if len(rs) != 1 || rs[0].Status != store.Interrupted {
			t.Errorf("runs %+v, want the one under way, interrupted", rs)
		}
	})
}

// TestKubeLeastRBAC runs an experiment as a ServiceAccount that has only
// the Role of examples/kubernetes/rbac.yaml in its namespace, as the
// README says a cluster's admin may grant it.
func TestKubeLeastRBAC(t *testing.T) {
	tc := upCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	admin := filepath.Join(tc.dir, "kubeconfig")
	kubectl := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", admin}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	kubectl("create", "namespace", "bench")
	kubectl("apply", "-f", "../../examples/kubernetes/rbac.yaml")
	token := kubectl("create", "token", "latlab", "-n", "bench")
	cfg, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		*a = clientcmdapi.AuthInfo{Token: token}
	}
	limited := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, limited); err != nil {
		t.Fatal(err)
	}
	// The ServiceAccount cannot do what the admin can.
	if out, err := exec.Command("kubectl", "--kubeconfig", limited, "get", "pods", "-n", "default").CombinedOutput(); err == nil {
		t.Fatalf("the ServiceAccount lists pods in default:\n%s", out)
	}

	spec := experimentIn(t, "bench", "kube-rbac", "mode: open, rates: [20], duration: 2s",
		"probes: {metrics: {interval: 500ms, window: 1s}, traces: true, pprof: {at: 10%, seconds: 1}}\n")
	db := filepath.Join(t.TempDir(), "results.db")
	bin, err := latlabBinary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, bin, "run", "--kubeconfig", limited, spec, "-o", db).CombinedOutput()
	if err != nil {
		t.Fatalf("latlab run as the ServiceAccount: %v\n%s", err, out)
	}
	profiled := 0
	for _, r := range runs(t, db) {
		if r.Status != store.Done || r.Summary == nil || r.Summary.Requests != 40 {
			t.Errorf("run %d (%s): status %s, error %q", r.ID, r.Variant, r.Status, r.Error)
		}
		profiled += len(profiles(t, db, r.ID))
		// The Role lets it read the pods' metrics.
		for _, p := range probePoints(t, db, r.ID) {
			if p.Probe == "process" && p.Series == "up" && p.Value == 0 {
				t.Errorf("run %d (%s): the pods' metrics failed: %v", r.ID, r.Variant, p.Labels)
			}
		}
	}
	// And through the service proxy, its profiles (one of a busy
	// machine's may be cut short by the end of its run, and not kept).
	if profiled == 0 {
		t.Errorf("no profile in either run:\n%s", out)
	}
	tc.nothingLeft(t)

	// Without a metrics API (metrics-server not installed), the runs go
	// on and the report says what was not measured.
	kubectl("delete", "apiservice", "v1beta1.metrics.k8s.io")
	spec = experimentIn(t, "bench", "kube-nometrics", "mode: open, rates: [20], duration: 1s", "")
	db = filepath.Join(t.TempDir(), "results.db")
	if out, err := exec.CommandContext(ctx, bin, "run", "--kubeconfig", limited, spec, "-o", db).CombinedOutput(); err != nil {
		t.Fatalf("latlab run without a metrics API: %v\n%s", err, out)
	}
	report, err := exec.CommandContext(ctx, bin, "report", db).CombinedOutput()
	if err != nil {
		t.Fatalf("latlab report: %v\n%s", err, report)
	}
	for _, v := range []string{"chain", "chain-proxy"} {
		note := regexp.MustCompile(`note: ` + regexp.QuoteMeta(v+": the process probe of pods of "+v) + ` failed in (\d+) of (\d+) counted run\(s\), e\.g\.: pod metrics in bench: ` +
			regexp.QuoteMeta(cluster.ErrNoMetricsAPI.Error()) + "\n")
		if m := note.FindStringSubmatch(string(report)); m == nil || m[1] != m[2] {
			t.Errorf("the report lacks the note that %s's pods were not measured in any run (%q):\n%s", v, m, report)
		}
	}
}
