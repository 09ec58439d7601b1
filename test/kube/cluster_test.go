package kube

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// testCluster is a test cluster that up.sh started in dir.
type testCluster struct {
	dir  string
	slot int
	cs   *kubernetes.Clientset
	down sync.Once
}

// image is what the clusters call latlab's image.
const image = "latlab/latlab:dev"

// binDir holds the binaries the package's tests build; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "latlab-kube-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// build returns a function that builds the package pkg once for the
// package's tests.
func build(name, pkg string) func() (string, error) {
	return sync.OnceValues(func() (string, error) {
		bin := filepath.Join(binDir, name)
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
		return bin, nil
	})
}

var (
	latlabBinary = build("latlab", "../../cmd/latlab")
	runnerBinary = build("podrunner", "./podrunner")
)

// upCluster starts a cluster whose pods run latlab for image, with
// podrunner's extra flags, and stops it when the test ends; it skips t
// where a cluster cannot run: with -short, without the Kubernetes
// binaries, or not as root.
func upCluster(t *testing.T, runnerFlags ...string) *testCluster {
	t.Helper()
	bin := binaries(t)
	if os.Geteuid() != 0 {
		t.Skip("the test cluster's pod runner needs root (network namespaces, veths, mounts)")
	}
	for _, tool := range []string{"ip", "openssl", "kubectl", "setsid", "ss", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the test cluster needs %s", tool)
		}
	}
	latlab, err := latlabBinary()
	if err != nil {
		t.Fatal(err)
	}
	// up.sh would build the runner into each cluster's directory; $PODRUNNER
	// (a runner built with -race, say) wins over this one.
	runner := os.Getenv("PODRUNNER")
	if runner == "" {
		if runner, err = runnerBinary(); err != nil {
			t.Fatal(err)
		}
	}
	c := &testCluster{dir: t.TempDir()}
	// Runs before t.TempDir's removal, and also when the test fails.
	t.Cleanup(func() { c.stop(t) })

	args := []string{"up.sh", c.dir, "--owner", strconv.Itoa(os.Getpid()), "--image", image + "=" + latlab, "--"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append(args, runnerFlags...)...)
	cmd.Env = append(os.Environ(), "LATLAB_KUBE_BIN="+bin, "PODRUNNER="+runner)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	if err != nil || strings.TrimSpace(stdout.String()) != "ready" {
		t.Fatalf("up.sh: %v; stdout %q; stderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("up.sh: ready in %s", time.Since(start).Round(100*time.Millisecond))
	b, err := os.ReadFile(filepath.Join(c.dir, "slot"))
	if err != nil {
		t.Fatal(err)
	}
	if c.slot, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(c.dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	if c.cs, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return c
}

// stop runs down.sh once; a test calls it to check what is left, the
// cleanup calls it in any case.
func (c *testCluster) stop(t *testing.T) {
	t.Helper()
	c.down.Do(func() {
		start := time.Now()
		out, err := exec.Command("bash", "down.sh", c.dir).CombinedOutput()
		if err != nil {
			t.Errorf("down.sh: %v\n%s", err, out)
		}
		t.Logf("down.sh: done in %s%s", time.Since(start).Round(100*time.Millisecond), indent(string(out)))
		// A runner built with -race (PODRUNNER) reports in its log.
		if b, _ := os.ReadFile(filepath.Join(c.dir, "logs", "podrunner.log")); bytes.Contains(b, []byte("DATA RACE")) || bytes.Contains(b, []byte("panic:")) {
			t.Errorf("the pod runner's log has a race or a panic:\n%s", b)
		}
		if t.Failed() {
			t.Logf("the pod runner's log ends:\n%s", tail(filepath.Join(c.dir, "logs"), "podrunner"))
		}
	})
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "\n\t" + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n\t")
}

// leftovers lists what of the cluster is still on the machine: its
// processes, and the network namespaces, links, addresses and routing
// rule of its slot.
func (c *testCluster) leftovers(t *testing.T) []string {
	t.Helper()
	var left []string
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + p.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err == nil && bytes.Contains(cmdline, []byte(c.dir)) && !bytes.Contains(stat, []byte(") Z ")) {
			left = append(left, "process "+p.Name()+": "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	run := func(args ...string) string {
		out, err := exec.Command("ip", args...).Output()
		if err != nil {
			t.Fatalf("ip %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	for _, line := range strings.Split(run("netns", "list"), "\n") {
		if strings.HasPrefix(line, fmt.Sprintf("llk-%d-", c.slot)) {
			left = append(left, "network namespace "+line)
		}
	}
	for _, line := range strings.Split(run("-o", "link"), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], fmt.Sprintf("llk%d-", c.slot)) {
			left = append(left, "link "+f[1])
		}
	}
	for _, line := range strings.Split(run("-o", "-4", "addr"), "\n") {
		for _, net := range []string{"198.18", "198.19"} {
			if strings.Contains(line, fmt.Sprintf(" %s.%d.", net, c.slot)) {
				left = append(left, "address "+strings.Join(strings.Fields(line), " "))
			}
		}
	}
	for _, line := range strings.Split(run("rule"), "\n") {
		if strings.HasPrefix(line, fmt.Sprintf("%d:", 7000+c.slot)) {
			left = append(left, "rule "+line)
		}
	}
	if _, err := os.Stat(filepath.Join(c.dir, "mountpoints")); err == nil {
		b, _ := os.ReadFile(filepath.Join(c.dir, "mountpoints"))
		left = append(left, "mount points "+strings.Join(strings.Fields(string(b)), " "))
	}
	return left
}

// poll calls f every 250 ms until it returns true, failing t with what
// f said last after timeout. Waits are generous: a loaded machine is
// slow, not wrong.
func poll(t *testing.T, timeout time.Duration, what string, f func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, why := f()
		if ok {
			return
		}
		if why != "" {
			last = why
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s; last: %s", what, timeout, last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// namespace makes a namespace for the test's objects.
func (c *testCluster) namespace(t *testing.T, name string) string {
	t.Helper()
	// The service account controller gives the namespace its default
	// ServiceAccount, which pods need, shortly after it exists.
	ctx := context.Background()
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, 2*time.Minute, "the default ServiceAccount of "+name, func() (bool, string) {
		_, err := c.cs.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
	return name
}

// pod returns a pod, or nil with why not.
func (c *testCluster) pod(ns, name string) (*corev1.Pod, string) {
	p, err := c.cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, err.Error()
	}
	return p, ""
}

// logs returns a container's log through the API.
func (c *testCluster) logs(t *testing.T, ns, pod string, opt *corev1.PodLogOptions) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := c.cs.CoreV1().Pods(ns).GetLogs(pod, opt).DoRaw(ctx)
	if err != nil {
		t.Fatalf("logs of %s/%s %s: %v: %s", ns, pod, opt.Container, err, b)
	}
	return string(b)
}
