package spec

import (
	"strings"
	"testing"
	"time"
)

// kubeBase is a valid spec of two variants on a cluster and load from a
// pod, 17 lines long.
const kubeBase = `version: 1
name: k
kubernetes:
  namespace: bench
  image: example.com/latlab:1
variants:
  - name: chain
    graph: graphs/chain.yaml
    on: kubernetes
  - name: web
    target: http://web.bench.svc/
    kubernetes: {manifests: kube/web.yaml, namespace: web}
load:
  on: kubernetes
  rates: [100]
warmup: {duration: 1s}
runs: 2
`

func TestParseKubernetes(t *testing.T) {
	s, err := ParseSpec("spec.yaml", []byte(kubeBase), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	if s.Kubernetes == nil || s.Kubernetes.Namespace != "bench" || s.Kubernetes.Image != "example.com/latlab:1" {
		t.Errorf("kubernetes: %+v", s.Kubernetes)
	}
	if s.LoadPod == nil || s.LoadPod.Image != "example.com/latlab:1" || s.LoadPod.Namespace != "" {
		t.Errorf("the load pod %+v, want the spec's image", s.LoadPod)
	}
	chain, web := s.Variant("chain"), s.Variant("web")
	if !chain.InCluster() || chain.On != OnKubernetes || chain.ReadyTimeout != DefaultKubeReadyTimeout {
		t.Errorf("chain: on %q, ready timeout %v", chain.On, chain.ReadyTimeout)
	}
	if !web.InCluster() || len(web.Objects) != 2 || web.Namespace(s) != "web" || chain.Namespace(s) != "bench" {
		t.Errorf("web: %d objects, namespace %q; chain's %q", len(web.Objects), web.Namespace(s), chain.Namespace(s))
	}
	for _, want := range []string{"kubernetes.image: example.com/latlab:1", "variants[chain].on: kubernetes",
		"variants[web].kubernetes.manifests: kube/web.yaml", "load_pod.image: example.com/latlab:1", `files["kube/web.yaml"]: `} {
		if !strings.Contains(s.Canonical(), want) {
			t.Errorf("the canonical form lacks %q:\n%s", want, s.Canonical())
		}
	}
	// A local spec is not on a cluster.
	local, err := ParseSpec("spec.yaml", []byte(loadBase), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	if local.InCluster() || !s.InCluster() {
		t.Error("inCluster is wrong")
	}
	other, err := ParseSpec("spec.yaml", []byte(strings.Replace(kubeBase, "namespace: web", "namespace: web2", 1)), "testdata/specs")
	if err != nil || other.Hash() == s.Hash() {
		t.Errorf("another namespace left the hash as it was: %v", err)
	}
	timed, err := ParseSpec("spec.yaml", []byte(strings.Replace(kubeBase, "    on: kubernetes\n", "    on: kubernetes\n    ready_timeout: 1m\n", 1)), "testdata/specs")
	if err != nil || timed.Variant("chain").ReadyTimeout != time.Minute {
		t.Errorf("ready_timeout given: %v", err)
	}
}

func TestParseKubernetesErrors(t *testing.T) {
	testErrors(t, []errorCase{
		{
			name: "unknown field",
			spec: strings.Replace(kubeBase, "  namespace: bench\n", "  namespace: bench\n  cluster: x\n", 1),
			want: "spec.yaml:5: kubernetes.cluster: unknown field; expected namespace, image",
		},
		{
			name: "bad namespace",
			spec: strings.Replace(kubeBase, "namespace: bench", "namespace: Bench_1", 1),
			want: `spec.yaml:4: kubernetes.namespace: "Bench_1" is not a namespace's name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		},
		{
			name: "no image",
			spec: strings.Replace(kubeBase, "  image: example.com/latlab:1\n", "", 1),
			want: "spec.yaml:8: variants[0].on: a graph on a cluster runs a latlab image: give kubernetes.image\n" +
				"spec.yaml:13: load.on: load in a cluster runs a latlab image: give load.image or kubernetes.image",
		},
		{
			name: "graph on a cluster, load here",
			spec: strings.Replace(kubeBase, "  on: kubernetes\n  rates", "  rates", 1),
			want: "spec.yaml:9: variants[0].on: its services answer inside the cluster only: run the load there too, with load: {on: kubernetes}",
		},
		{
			name: "graph here, load in a pod",
			spec: strings.Replace(kubeBase, "    on: kubernetes\n", "", 1),
			want: "spec.yaml:8: variants[0].graph: a graph started here answers on 127.0.0.1, which a load pod cannot reach: give on: kubernetes to deploy it to the cluster",
		},
		{
			name: "on for a target",
			spec: strings.Replace(kubeBase, "    kubernetes: {manifests: kube/web.yaml, namespace: web}\n", "    on: kubernetes\n", 1),
			want: "spec.yaml:12: variants[1].on: is for graphs: deploy a target with kubernetes: {manifests: FILE}",
		},
		{
			name: "manifests for a graph",
			spec: strings.Replace(kubeBase, "    on: kubernetes\n", "    on: kubernetes\n    kubernetes: {manifests: kube/web.yaml}\n", 1),
			want: "spec.yaml:10: variants[0].kubernetes.manifests: is for targets: a graph goes to the cluster with on: kubernetes",
		},
		{
			name: "ready on a cluster",
			spec: strings.Replace(kubeBase, "    target: http://web.bench.svc/\n", "    target: http://web.bench.svc/\n    ready: http://web.bench.svc/healthz\n", 1),
			want: "spec.yaml:12: variants[1].ready: a variant on a cluster is ready once its workloads have rolled out and its Services have ready endpoints; ready is for targets here",
		},
		{
			name: "manifests missing",
			spec: strings.Replace(kubeBase, "kube/web.yaml", "kube/none.yaml", 1),
			want: "spec.yaml:12: variants[1].kubernetes.manifests: reading manifests: stat testdata/specs/kube/none.yaml: no such file or directory",
		},
		{
			name: "manifest without a name",
			spec: strings.Replace(kubeBase, "kube/web.yaml", "kube/bad.yaml", 1),
			want: "testdata/specs/kube/bad.yaml:1: metadata.name: missing (generateName cannot be applied)",
		},
		{
			name: "two variants, one object",
			spec: strings.Replace(kubeBase, "load:\n", "  - name: web2\n    target: http://web.web.svc/\n    kubernetes: {manifests: kube/web.yaml, namespace: web}\nload:\n", 1),
			want: "spec.yaml:15: variants[2].kubernetes.manifests: deployment web is variant web's too: give the variants namespaces of their own (kubernetes.namespace)\n" +
				"spec.yaml:15: variants[2].kubernetes.manifests: service web is variant web's too: give the variants namespaces of their own (kubernetes.namespace)",
		},
		{
			name: "where the load runs, in a variant",
			spec: strings.Replace(kubeBase, "    on: kubernetes\n", "    on: kubernetes\n    load: {image: x}\n", 1),
			want: "spec.yaml:10: variants[0].load.image: where the load runs is the spec's, the same for every variant: give it in the spec's load",
		},
		{
			name: "load image without on",
			spec: strings.Replace(loadBase, "  rates: [100]\n", "  rates: [100]\n  image: x\n", 1),
			want: "spec.yaml:8: load.image: is for load in a cluster: give on: kubernetes too",
		},
		{
			name: "load on nowhere",
			spec: strings.Replace(loadBase, "  rates: [100]\n", "  rates: [100]\n  on: mars\n", 1),
			want: `spec.yaml:8: load.on: expected local or kubernetes, got "mars"`,
		},
		{
			name: "pprof of a pod by address",
			spec: strings.Replace(kubeBase, "http://web.bench.svc/", "http://198.18.0.9:8080/", 1) + "probes: {pprof: {at: 50%}}\n",
			want: "spec.yaml:18: probes.pprof: variant web's profiles come through the API server from the Service its target names, and http://198.18.0.9:8080/: its host is not a Service as pods name it (NAME, NAME.NAMESPACE or NAME.NAMESPACE.svc): give url: of its /debug/pprof as this machine reaches it",
		},
		{
			name: "kubernetes, nothing on it",
			spec: loadBase + "kubernetes: {image: x}\n",
			want: "spec.yaml:8: kubernetes: nothing runs on the cluster: give a variant on: kubernetes or kubernetes.manifests, or load: {on: kubernetes}",
		},
	})
}
