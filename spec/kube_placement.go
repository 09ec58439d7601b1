package spec

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/latlab/latlab/cluster"
)

// Place gives lp, a load pod of the cluster, the node selector,
// tolerations and resources of the spec's load pod p.
func (p *LoadPod) Place(lp *cluster.LoadPod) {
	lp.NodeSelector = maps.Clone(p.NodeSelector)
	for _, t := range p.Tolerations {
		lp.Tolerations = append(lp.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOperator(t.Operator),
			Value: t.Value, Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.Seconds})
	}
	lp.Resources = corev1.ResourceRequirements{Requests: p.Resources.Requests.list(), Limits: p.Resources.Limits.list()}
}

// list returns q as a container's resource list; nil when q is empty.
// The parser checked each quantity.
func (q Quantities) list() corev1.ResourceList {
	var l corev1.ResourceList
	for name, v := range map[corev1.ResourceName]string{corev1.ResourceCPU: q.CPU, corev1.ResourceMemory: q.Memory} {
		if v == "" {
			continue
		}
		if l == nil {
			l = corev1.ResourceList{}
		}
		l[name] = resource.MustParse(v)
	}
	return l
}
