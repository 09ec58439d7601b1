package main

import (
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/remote"
)

// TestAttackPodFlags holds that the flags of an attack from a pod are
// refused without --kubernetes, and that with it the flags a pod cannot
// take are refused, naming the flag, before the cluster is reached.
func TestAttackPodFlags(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent/kubeconfig") // never reached
	dir := t.TempDir()
	twoHosts := writeIn(t, dir, "two.targets", "GET http://a.example/\n\nGET http://b.example/\n")
	withUser := writeIn(t, dir, "user.targets", "GET http://me:secret@a.example/\n")
	const url = "http://svc.ns.svc:8080/"
	pod := []string{"--kubernetes", "--image", "latlab:dev"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"image alone", []string{url, "--image", "latlab:dev"}, "--image is for an attack from a pod: give --kubernetes too"},
		{"namespace alone", []string{url, "--namespace", "bench"}, "--namespace is for an attack from a pod"},
		{"kubeconfig alone", []string{url, "--kubeconfig", "k"}, "--kubeconfig is for an attack from a pod"},
		{"context alone", []string{url, "--context", "c"}, "--context is for an attack from a pod"},
		{"no image", []string{url, "--kubernetes"}, "--kubernetes: give --image"},
		{"unix socket", append([]string{url, "--unix-socket", "/tmp/s"}, pod...), "--unix-socket: a socket of this machine"},
		{"cert", append([]string{"https://svc/", "--cert", "c.pem", "--key", "k.pem"}, pod...), "--cert: a client certificate is not carried"},
		{"cpus", append([]string{url, "--cpus", "0"}, pod...), "--cpus: pins latlab on this machine"},
		{"stages", append([]string{url, "--stages", "10s:100"}, pod...), "--stages: a pod runs the load of an experiment's trial"},
		{"realtime", append([]string{url, "-r", "10", "--realtime"}, pod...), "--realtime: a load pod runs without capabilities"},
		{"header twice", append([]string{url, "-H", "X-A: 1", "-H", "x-a: 2"}, pod...), `-H "x-a: 2": X-A is given twice`},
		{"targets to two hosts", append([]string{"--targets", twoHosts, "-n", "1"}, pod...), "--targets " + twoHosts + ": its requests go to http://a.example/ and to http://b.example/"},
		{"targets with a user", append([]string{"--targets", withUser, "-n", "1"}, pod...), "has user information"},
		{"seed", append([]string{url, "-r", "10", "--arrivals", "poisson", "--seed", "18446744073709551615"}, pod...), "--seed: want at most"},
		{"image with a space", []string{url, "--kubernetes", "--image", "latlab dev"}, `--image: "latlab dev" is not a container image`},
		{"bad namespace", append([]string{url, "--namespace", "Not_A_Namespace"}, pod...), `--namespace: "Not_A_Namespace" is not a namespace's name`},
		{"still the attack's rules", append([]string{url, "--pool", "4"}, pod...), "--pool opens the connections of an open loop"},
		{"node selector alone", []string{url, "--node-selector", "pool=load"}, "--node-selector is for an attack from a pod: give --kubernetes too"},
		{"toleration alone", []string{url, "--toleration", "dedicated=load:NoSchedule"}, "--toleration is for an attack from a pod"},
		{"pod requests alone", []string{url, "--pod-requests", "cpu=1"}, "--pod-requests is for an attack from a pod"},
		{"node selector without =", append([]string{url, "--node-selector", "pool"}, pod...), `--node-selector "pool": want KEY=VALUE`},
		{"bad label", append([]string{url, "--node-selector", "pool=a b"}, pod...), `--node-selector: "a b" is not a label's value`},
		{"bad effect", append([]string{url, "--toleration", "dedicated=load:Never"}, pod...), `--toleration: expected NoSchedule, PreferNoSchedule or NoExecute, got "Never"`},
		{"requests without =", append([]string{url, "--pod-requests", "cpu"}, pod...), `--pod-requests "cpu": want NAME=QUANTITY`},
		{"bad quantity", append([]string{url, "--pod-limits", "memory=lots"}, pod...), `--pod-limits: "lots" is not a Kubernetes quantity`},
		{"request above limit", append([]string{url, "--pod-requests", "cpu=2", "--pod-limits", "cpu=1"}, pod...), "--pod-requests: 2 is more than its limit 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"attack"}, tt.args...)...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestAttackPodSpec holds that the spec an attack from a pod is sent as
// makes the agent build the load the same flags build here: the model
// and its levels, the requests (of a URL, a targets file naming a body
// file of its own, a scenario, a body file), the transport with its CA,
// the limits and the raw samples kept. The warm-up is the one difference:
// here it runs inside the measured attack, there as an attack of its
// own before it, as an experiment's does, of the same load for the same
// time.
func TestAttackPodSpec(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeIn(t, dir, "body.json", `{"a":1}`)
	writeIn(t, dir, "post.json", `{"b":2}`)
	writeIn(t, dir, "t.targets", "GET http://svc.ns:8080/a\nX-Trace: 1\n\nPOST http://svc.ns:8080/objects\nContent-Type: application/json\n@post.json\n")
	writeIn(t, dir, "s.yaml", `steps:
  - {name: create, method: POST, url: "http://svc.ns:8080/objects/o-{{.Worker}}-{{.Iter}}", body: '{"n":{{.Seq}}}'}
  - {name: get, url: "http://svc.ns:8080/objects/o-{{.Worker}}-{{.Iter}}"}
`)
	srv := newServer(t, tlsHTTP2, http.StatusOK, 0)
	if err := os.Rename(certFile(t, srv), "ca.pem"); err != nil {
		t.Fatal(err)
	}
	const url = "http://svc.ns.svc:8080/path?q=1"
	tests := [][]string{
		{url, "-r", "100", "-d", "5s"},
		{url, "-r", "50/s", "--arrivals", "poisson", "--seed", "7", "-n", "100", "-c", "20", "--pool", "4"},
		{url, "-n", "200"},
		{url, "-c", "8", "-d", "3s", "--warmup", "1s", "-m", "post", "-H", "X-A: 1", "-H", "Host: h.example", "-H", "Accept: */*",
			"-b", `{"a":1}`, "--timeout", "2s", "--no-keepalive", "--connections", "4", "--success", "200-299,304", "--interval", "500ms"},
		{url, "-c", "10", "--ramp", "2/1s", "-d", "5s", "--warmup", "2s"},
		{url, "--sequential", "-n", "10", "-m", "PUT", "--body-file", "body.json"},
		{"https://svc.ns.svc:8443/", "--http2", "--streams", "10", "--cacert", "ca.pem", "-n", "10", "-c", "2"},
		{url, "--h2c", "-r", "10", "-d", "1s"},
		{url, "-r", "10", "-d", "1s", "--realtime=false"},
		{url, "-r", "10", "-d", "1s", "--realtime=auto"},
		{"https://svc.ns.svc:8443/", "--client", "nethttp", "--insecure", "-n", "10"},
		{"--targets", "t.targets", "-r", "10", "-d", "1s", "-c", "5", "--warmup", "1s"},
		{"--scenario", "s.yaml", "-c", "2", "-n", "4"},
		{url, "-n", "100", "-o", "out.db", "--samples", "10"},
		{url, "-n", "100", "-o", "out.json"},
	}
	opts := cmp.Options{
		cmpopts.IgnoreFields(load.Config{}, "Source", "Warmup", "Started"),
		cmpopts.IgnoreUnexported(load.Poisson{}, load.Request{}),
		cmp.AllowUnexported(record.CodeSet{}),
		cmp.Comparer(func(a, b *tls.Config) bool {
			return (a == nil) == (b == nil) && (a == nil ||
				a.InsecureSkipVerify == b.InsecureSkipVerify && len(a.Certificates) == len(b.Certificates) &&
					(a.RootCAs == nil) == (b.RootCAs == nil) && (a.RootCAs == nil || a.RootCAs.Equal(b.RootCAs)))
		}),
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			f, cmd := attackCommand(io.Discard, io.Discard)
			if err := cmd.ParseFlags(append(args, "--kubernetes", "--image", "latlab:dev")); err != nil {
				t.Fatal(err)
			}
			pos := cmd.Flags().Args()
			if err := f.pod.check(f.podSet(cmd.Flags().Changed)); err != nil {
				t.Fatal(err)
			}
			local, _, err := f.config(cmd, pos)
			if err != nil {
				t.Fatal(err)
			}
			s, b, err := f.podBundle(local, pos, dir)
			if err != nil {
				t.Fatal(err)
			}
			if s.LoadPod == nil || s.LoadPod.Image != "latlab:dev" {
				t.Errorf("load pod %+v, want one of image latlab:dev", s.LoadPod)
			}
			warm, remote, err := b.Loads(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(local, remote, opts); diff != "" {
				t.Errorf("the pod's load differs (-here +pod):\n%s", diff)
			}
			if diff := cmp.Diff(requests(t, local.Source), requests(t, remote.Source), cmpopts.IgnoreUnexported(load.Request{})); diff != "" {
				t.Errorf("the pod's requests differ (-here +pod):\n%s", diff)
			}
			if remote.Warmup != 0 {
				t.Errorf("the pod's measured load has a warm-up of %s inside it", remote.Warmup)
			}
			switch {
			case local.Warmup == 0 && warm != nil:
				t.Errorf("the pod warms up for %s; there is no warm-up here", warm.Duration)
			case local.Warmup == 0:
			case warm == nil:
				t.Errorf("the pod does not warm up; here the warm-up is %s", local.Warmup)
			default:
				want := local
				want.Duration, want.Count, want.KeepRaw = local.Warmup, 0, 0
				if diff := cmp.Diff(want, *warm, opts); diff != "" {
					t.Errorf("the pod's warm-up differs (-want +pod):\n%s", diff)
				}
				if diff := cmp.Diff(requests(t, local.Source), requests(t, warm.Source), cmpopts.IgnoreUnexported(load.Request{})); diff != "" {
					t.Errorf("the pod's warm-up requests differ (-here +pod):\n%s", diff)
				}
			}
		})
	}
}

// requests returns the requests src builds for its steps over the first
// iterations of two workers.
func requests(t *testing.T, src load.Source) []*load.Request {
	t.Helper()
	var out []*load.Request
	for seq := range int64(4) {
		for step := range src.Steps() {
			r, err := src.Request(step, load.Vars{Worker: seq % 2, Iter: seq / 2, Seq: seq})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
	}
	return out
}

// TestAttackPodPlacement holds that --node-selector, --toleration,
// --pod-requests and --pod-limits place the load pod as the spec's
// load.node_selector, load.tolerations and load.resources do.
func TestAttackPodPlacement(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	f, cmd := attackCommand(io.Discard, io.Discard)
	if err := cmd.ParseFlags([]string{"http://svc.ns:8080/", "-n", "10", "--kubernetes", "--image", "latlab:dev",
		"--node-selector", "pool=load", "--node-selector", "kubernetes.io/os=linux",
		"--toleration", "dedicated=load:NoSchedule", "--toleration", "spot:NoExecute", "--toleration", "gpu",
		"--pod-requests", "cpu=500m, memory=128Mi", "--pod-limits", "cpu=2"}); err != nil {
		t.Fatal(err)
	}
	pos := cmd.Flags().Args()
	if err := f.pod.check(f.podSet(cmd.Flags().Changed)); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := f.config(cmd, pos)
	if err != nil {
		t.Fatal(err)
	}
	s, b, err := f.podBundle(cfg, pos, dir)
	if err != nil {
		t.Fatal(err)
	}
	lp := remote.AgentPod(s, b.Trial, "bench")
	if len(lp.NodeSelector) != 2 || lp.NodeSelector["pool"] != "load" || lp.NodeSelector["kubernetes.io/os"] != "linux" {
		t.Errorf("node selector %v", lp.NodeSelector)
	}
	want := []corev1.Toleration{
		{Key: "dedicated", Value: "load", Effect: corev1.TaintEffectNoSchedule},
		{Key: "spot", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "gpu", Operator: corev1.TolerationOpExists},
	}
	if diff := cmp.Diff(want, lp.Tolerations, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	r := lp.Resources
	if r.Requests.Cpu().MilliValue() != 500 || r.Requests.Memory().Value() != 128<<20 || r.Limits.Cpu().Value() != 2 || len(r.Limits) != 1 {
		t.Errorf("resources %+v", r)
	}
}
