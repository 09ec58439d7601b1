package spec

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/cluster"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// placed is kubeBase with its load pods placed: a node selector, two
// tolerations and resources.
var placed = strings.Replace(kubeBase, "  rates: [100]\n", `  rates: [100]
  node_selector: {kubernetes.io/os: linux, pool: load}
  tolerations:
    - {key: dedicated, value: load, effect: NoSchedule}
    - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, toleration_seconds: 30}
  resources:
    requests: {cpu: 500m, memory: 128Mi}
    limits: {cpu: 2}
`, 1)

func TestParseLoadPodPlacement(t *testing.T) {
	s, err := ParseSpec("spec.yaml", []byte(placed), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	var lp cluster.LoadPod
	s.LoadPod.Place(&lp)
	if got := lp.NodeSelector; len(got) != 2 || got["kubernetes.io/os"] != "linux" || got["pool"] != "load" {
		t.Errorf("node selector %v", got)
	}
	thirty := int64(30)
	want := []corev1.Toleration{
		{Key: "dedicated", Value: "load", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &thirty},
	}
	if len(lp.Tolerations) != len(want) {
		t.Fatalf("tolerations %+v, want %+v", lp.Tolerations, want)
	}
	for i := range want {
		if !lp.Tolerations[i].MatchToleration(&want[i]) || *lp.Tolerations[1].TolerationSeconds != 30 {
			t.Errorf("toleration %d: %+v, want %+v", i, lp.Tolerations[i], want[i])
		}
	}
	res := lp.Resources
	if !res.Requests.Cpu().Equal(resource.MustParse("500m")) || !res.Requests.Memory().Equal(resource.MustParse("128Mi")) ||
		!res.Limits.Cpu().Equal(resource.MustParse("2")) || len(res.Limits) != 1 {
		t.Errorf("resources %+v", res)
	}
	for _, line := range []string{"load_pod.node_selector.pool: load", "load_pod.tolerations[1].toleration_seconds: 30",
		"load_pod.resources.requests.cpu: 500m", "load_pod.resources.limits.cpu: 2"} {
		if !strings.Contains(s.Canonical(), line) {
			t.Errorf("the canonical form lacks %q:\n%s", line, s.Canonical())
		}
	}
	plain, err := ParseSpec("spec.yaml", []byte(kubeBase), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	if plain.Hash() == s.Hash() {
		t.Error("placing the load pods left the hash as it was")
	}
	lp = cluster.LoadPod{}
	plain.LoadPod.Place(&lp)
	if lp.NodeSelector != nil || lp.Tolerations != nil || lp.Resources.Requests != nil || lp.Resources.Limits != nil {
		t.Errorf("a load pod the spec does not place: %+v", lp)
	}
}

func TestParseLoadPodPlacementErrors(t *testing.T) {
	with := func(lines string) string {
		return strings.Replace(kubeBase, "  rates: [100]\n", "  rates: [100]\n"+lines, 1)
	}
	testErrors(t, []errorCase{
		{
			name: "label name",
			spec: with("  node_selector: {a/b/c: x}\n"),
			want: `spec.yaml:16: load.node_selector.a/b/c: "a/b/c" is not a label's name: a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
		},
		{
			name: "label value",
			spec: with("  node_selector: {pool: 'a b'}\n"),
			want: `spec.yaml:16: load.node_selector.pool: "a b" is not a label's value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		},
		{
			name: "empty selector",
			spec: with("  node_selector: {}\n"),
			want: "spec.yaml:16: load.node_selector: expected at least one label, such as kubernetes.io/os: linux",
		},
		{
			name: "effect",
			spec: with("  tolerations: [{key: a, effect: NoWay}]\n"),
			want: `spec.yaml:16: load.tolerations[0].effect: expected NoSchedule, PreferNoSchedule or NoExecute, got "NoWay"`,
		},
		{
			name: "exists with a value",
			spec: with("  tolerations:\n    - key: a\n      operator: Exists\n      value: b\n"),
			want: "spec.yaml:19: load.tolerations[0].value: operator Exists matches any value: give no value, or operator Equal",
		},
		{
			name: "no key, equal",
			spec: with("  tolerations: [{value: b}]\n"),
			want: "spec.yaml:16: load.tolerations[0]: a toleration without a key matches every taint, which only operator Exists can say: give a key, or operator: Exists",
		},
		{
			name: "seconds without NoExecute",
			spec: with("  tolerations: [{key: a, toleration_seconds: 5}]\n"),
			want: "spec.yaml:16: load.tolerations[0].toleration_seconds: bounds how long a pod stays on a node tainted NoExecute: give effect: NoExecute too",
		},
		{
			name: "unknown toleration field",
			spec: with("  tolerations: [{key: a, efect: NoSchedule}]\n"),
			want: "spec.yaml:16: load.tolerations[0].efect: unknown field; did you mean effect?",
		},
		{
			name: "empty tolerations",
			spec: with("  tolerations: []\n"),
			want: "spec.yaml:16: load.tolerations: expected at least one toleration",
		},
		{
			name: "quantity",
			spec: with("  resources: {requests: {cpu: lots}}\n"),
			want: `spec.yaml:16: load.resources.requests.cpu: "lots" is not a Kubernetes quantity (such as 500m, 2 or 256Mi)`,
		},
		{
			name: "not positive",
			spec: with("  resources: {limits: {memory: 0}}\n"),
			want: `spec.yaml:16: load.resources.limits.memory: "0" is not positive`,
		},
		{
			name: "request above limit",
			spec: with("  resources:\n    requests: {cpu: 3}\n    limits: {cpu: 2}\n"),
			want: "spec.yaml:17: load.resources.requests.cpu: 3 is more than its limit 2: a container cannot request more than it may use",
		},
		{
			name: "unknown resource",
			spec: with("  resources: {requests: {ephemeral-storage: 1Gi}}\n"),
			want: "spec.yaml:16: load.resources.requests.ephemeral-storage: unknown field; expected cpu, memory",
		},
		{
			name: "empty resources",
			spec: with("  resources: {}\n"),
			want: "spec.yaml:16: load.resources: expected requests, limits or both, such as requests: {cpu: 500m, memory: 256Mi}",
		},
		{
			name: "placement of local load",
			spec: strings.Replace(loadBase, "  rates: [100]\n", "  rates: [100]\n  node_selector: {pool: load}\n", 1),
			want: "spec.yaml:8: load.node_selector: is for load in a cluster: give on: kubernetes too",
		},
		{
			name: "placement in a variant",
			spec: strings.Replace(kubeBase, "    on: kubernetes\n", "    on: kubernetes\n    load: {resources: {limits: {cpu: 1}}}\n", 1),
			want: "spec.yaml:10: variants[0].load.resources: where the load runs is the spec's, the same for every variant: give it in the spec's load",
		},
	})
}
