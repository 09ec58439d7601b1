package kube

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/spec"
)

// TestLoadPod runs a trial from a load Job on the test cluster: the pod
// runs latlab agent, the trial's bundle and its result go through the API
// server's pod proxy (nothing connects to the test), and the result comes
// back whole. A load pod whose image cannot be had fails with that reason.
func TestLoadPod(t *testing.T) {
	tc := upCluster(t)
	c, err := cluster.Connect(cluster.Options{Kubeconfig: filepath.Join(tc.dir, "kubeconfig")})
	if err != nil {
		t.Fatal(err)
	}
	ns := tc.namespace(t, "load")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// The agent loads its own /healthz: the request path is the pod's.
	dir := t.TempDir()
	path := filepath.Join(dir, "spec.yaml")
	writeFile(t, path, []byte(`version: 1
name: podload
variants: [{name: self, target: "http://127.0.0.1:7070/healthz"}]
load: {mode: closed, concurrency: [2], requests: 200}
`))
	s, err := spec.ReadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := remote.NewBundle(s, s.Plan(1)[0], "", 50)
	if err != nil {
		t.Fatal(err)
	}
	labels := cluster.Labels("podload", "self")
	token, err := remote.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	run, err := c.StartLoad(ctx, cluster.LoadPod{Namespace: ns, Name: "load-1", Image: image, Token: token,
		Args: []string{"agent", "--listen", ":7070", "--token-file", cluster.TokenPath}, Port: 7070, ReadyPath: "/healthz", Labels: labels, Lifetime: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop(context.WithoutCancel(ctx))
	if err := run.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	u, err := c.PodURL(ns, run.Pod, 7070, "http")
	if err != nil {
		t.Fatal(err)
	}
	// Through the pod proxy, a request without the token is refused.
	if _, err := (&remote.Client{URL: u.String(), HTTP: c.HTTPClient(), Keep: true}).Run(ctx, b); err == nil ||
		!strings.Contains(err.Error(), "401") {
		t.Errorf("a trial posted without the token: %v, want 401", err)
	}
	r := &remote.Client{URL: u.String(), HTTP: c.HTTPClient(), Token: token}
	got, err := r.Run(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	res := got.Result
	if res.Requests != 200 || res.Codes[200] != 200 || int64(len(res.Raw)) != 50 || res.RawDropped != 150 {
		t.Errorf("result: %d requests, codes %v, %d raw, %d dropped; want 200 answered 200, 50 raw, 150 dropped",
			res.Requests, res.Codes, len(res.Raw), res.RawDropped)
	}
	if got := res.Latency.TotalCount(); got != 200 {
		t.Errorf("latency histogram counts %d, want 200", got)
	}

	// An image the cluster cannot pull: the pod fails with that reason.
	bad, err := c.StartLoad(ctx, cluster.LoadPod{Namespace: ns, Name: "load-bad", Image: "example.invalid/none:1",
		Args: []string{"agent"}, Port: 7070, ReadyPath: "/healthz", Labels: labels, Lifetime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Stop(context.WithoutCancel(ctx))
	err = bad.WaitReady(ctx, time.Minute)
	var pf *cluster.PodFailure
	if !errors.As(err, &pf) || pf.Reason != cluster.FailImage {
		t.Errorf("a pod of a missing image: %v, want a PodFailure of reason %s", err, cluster.FailImage)
	}
}
