package main

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestPick(t *testing.T) {
	nodes := func() []*nodeInfo {
		return []*nodeInfo{
			{name: "node-0", labels: nodeLabels("node-0"), cpu: 4000, memory: 8 << 30, pods: 110},
			{name: "node-1", labels: nodeLabels("node-1"), cpu: 1000, memory: 8 << 30, pods: 110},
		}
	}
	pod := func(cpu string, mod func(*corev1.PodSpec)) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
		if cpu != "" {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		}
		if mod != nil {
			mod(&p.Spec)
		}
		return p
	}
	onNode1 := func(s *corev1.PodSpec) {
		s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}},
			}}},
		}}}
	}
	tolerates := func(s *corev1.PodSpec) {
		s.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "load", Effect: corev1.TaintEffectNoSchedule}}
	}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want []string // the node of each pod in turn; "" for none
		why  map[string]int
	}{
		{"round robin", []*corev1.Pod{pod("", nil), pod("", nil), pod("", nil)}, []string{"node-0", "node-1", "node-0"}, nil},
		{"fits one node", []*corev1.Pod{pod("2", nil), pod("2", nil)}, []string{"node-0", "node-0"}, nil},
		{"fits none", []*corev1.Pod{pod("5", nil)}, []string{""}, map[string]int{"Insufficient cpu": 2}},
		{"runs out", []*corev1.Pod{pod("3", nil), pod("2", nil)}, []string{"node-0", ""}, map[string]int{"Insufficient cpu": 2}},
		{"node selector", []*corev1.Pod{pod("", func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-1"} })}, []string{"node-1"}, nil},
		{"affinity by name", []*corev1.Pod{pod("", onNode1), pod("", onNode1)}, []string{"node-1", "node-1"}, nil},
		{"affinity and room", []*corev1.Pod{pod("2", onNode1)}, []string{""},
			map[string]int{"Insufficient cpu": 1, "node(s) didn't match Pod's node affinity/selector": 1}},
		{"tainted", []*corev1.Pod{pod("", nil), pod("", nil)}, []string{"node-1", "node-1"}, nil},
		{"tolerated", []*corev1.Pod{pod("", tolerates), pod("", tolerates)}, []string{"node-0", "node-1"}, nil},
		{"tainted, no room", []*corev1.Pod{pod("2", nil)}, []string{""},
			map[string]int{"Insufficient cpu": 1, "node(s) had untolerated taint {dedicated: load}": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scheduler{}
			ns := nodes()
			if strings.HasPrefix(tc.name, "tainted") || tc.name == "tolerated" {
				ns[0].taints = []corev1.Taint{
					{Key: "dedicated", Value: "load", Effect: corev1.TaintEffectNoSchedule},
					{Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule},
					{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
				}
			}
			var why map[string]int
			for i, p := range tc.pods {
				n, w := s.pick(p, ns)
				got := ""
				if n != nil {
					got = n.name
					cpu, mem := requests(p)
					n.cpu, n.memory, n.pods = n.cpu-cpu, n.memory-mem, n.pods-1
				}
				if got != tc.want[i] {
					t.Errorf("pod %d went to %q, want %q", i, got, tc.want[i])
				}
				why = w
			}
			if len(tc.why) > 0 {
				for r, n := range tc.why {
					if why[r] != n {
						t.Errorf("reasons %v, want %v", why, tc.why)
					}
				}
			}
		})
	}
}

func TestRequests(t *testing.T) {
	q := func(cpu, mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
	}
	p := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Resources: q("3", "1Mi")}},
		Containers:     []corev1.Container{{Resources: q("500m", "1Gi")}, {Resources: q("1", "1Gi")}},
	}}
	cpu, mem := requests(p)
	if cpu != 3000 || mem != 2<<30 {
		t.Errorf("requests %d milli-cpu, %d bytes; want 3000, %d", cpu, mem, 2<<30)
	}
}
