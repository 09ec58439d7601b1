package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// ErrNoMetricsAPI is wrapped by PodMetrics's error when the cluster serves
// no metrics API (metrics.k8s.io), which metrics-server provides.
var ErrNoMetricsAPI = errors.New("the cluster serves no metrics API (metrics.k8s.io): install metrics-server to measure the pods' CPU and memory")

// PodUsage is a pod's CPU and memory as the metrics API gives them: the
// sum of its containers' over a window that ends at Time.
type PodUsage struct {
	Pod, Node string
	// Workload names what made the pod: its app.kubernetes.io/name
	// label, else its owner (a Deployment's, for a ReplicaSet's pod),
	// else the pod itself.
	Workload string
	Time     time.Time
	Window   time.Duration
	CPU      float64 // cores used on average over Window
	Memory   int64   // working set at Time, bytes
	// CPULimit is the sum of the containers' CPU limits in cores, 0 when
	// one of them has none; CPURequest the sum of their requests.
	CPULimit, CPURequest float64
	MemoryLimit          int64 // likewise, bytes
	// NodeCPU is the allocatable CPU of the pod's node in cores, 0 when
	// it could not be read (a namespaced Role cannot read nodes).
	NodeCPU float64
}

// PodMetrics returns the usage of the pods in namespace that selector
// matches, ordered by name, from the metrics API: only pods it has a
// window for, so a pod just started may be missing. The error wraps
// ErrNoMetricsAPI when the cluster has none.
func (c *Cluster) PodMetrics(ctx context.Context, namespace, selector string) ([]PodUsage, error) {
	usage, err := list[metricsv1beta1.PodMetricsList](ctx, c.metricsV1beta1, "pods", namespace, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		if noMetricsAPI(err) {
			return nil, fmt.Errorf("pod metrics in %s: %w", namespace, ErrNoMetricsAPI)
		}
		return nil, fmt.Errorf("pod metrics in %s: %w", namespace, err)
	}
	pods, err := list[corev1.PodList](ctx, c.coreV1, "pods", namespace, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("listing the pods in %s: %w", namespace, err)
	}
	specs := map[string]*corev1.Pod{}
	for i := range pods.Items {
		specs[pods.Items[i].Name] = &pods.Items[i]
	}
	var out []PodUsage
	for _, m := range usage.Items {
		u := PodUsage{Pod: m.Name, Time: m.Timestamp.Time, Window: m.Window.Duration}
		for _, ct := range m.Containers {
			u.CPU += ct.Usage.Cpu().AsApproximateFloat64()
			u.Memory += ct.Usage.Memory().Value()
		}
		u.Workload = m.Name
		if p := specs[m.Name]; p != nil {
			u.Node, u.Workload = p.Spec.NodeName, workload(p)
			u.CPULimit, u.CPURequest, u.MemoryLimit = podResources(p)
			if u.Node != "" {
				u.NodeCPU = c.nodeCPU(ctx, u.Node)
			}
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b PodUsage) int { return strings.Compare(a.Pod, b.Pod) })
	return out, nil
}

// podResources sums the CPU limits and requests and the memory limits of
// p's containers; a limit is 0 when a container has none.
func podResources(p *corev1.Pod) (cpuLimit, cpuRequest float64, memLimit int64) {
	unlimitedCPU, unlimitedMem := false, false
	for _, ct := range p.Spec.Containers {
		if q, ok := ct.Resources.Limits[corev1.ResourceCPU]; ok {
			cpuLimit += q.AsApproximateFloat64()
		} else {
			unlimitedCPU = true
		}
		if q, ok := ct.Resources.Limits[corev1.ResourceMemory]; ok {
			memLimit += q.Value()
		} else {
			unlimitedMem = true
		}
		if q, ok := ct.Resources.Requests[corev1.ResourceCPU]; ok {
			cpuRequest += q.AsApproximateFloat64()
		}
	}
	if unlimitedCPU {
		cpuLimit = 0
	}
	if unlimitedMem {
		memLimit = 0
	}
	return cpuLimit, cpuRequest, memLimit
}

// noMetricsAPI tells whether err says the API server does not serve
// metrics.k8s.io: the group is unknown (404), or registered but its
// server is unavailable (503), as when metrics-server is not running.
func noMetricsAPI(err error) bool {
	return apierrors.IsNotFound(err) || apierrors.IsServiceUnavailable(err)
}

// workload names what made pod p, as PodUsage.Workload says.
func workload(p *corev1.Pod) string {
	if n := p.Labels["app.kubernetes.io/name"]; n != "" {
		return n
	}
	for _, o := range p.OwnerReferences {
		if o.Controller == nil || !*o.Controller {
			continue
		}
		if h := p.Labels["pod-template-hash"]; o.Kind == "ReplicaSet" && h != "" {
			return strings.TrimSuffix(o.Name, "-"+h)
		}
		return o.Name
	}
	return p.Name
}

// nodeCPU returns node's allocatable CPU in cores, read once, 0 when it
// cannot be read.
func (c *Cluster) nodeCPU(ctx context.Context, node string) float64 {
	if v, ok := c.nodeCPUs.Load(node); ok {
		return v.(float64)
	}
	n, err := get[corev1.Node](ctx, c.coreV1, "nodes", "", node)
	if err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
			c.nodeCPUs.Store(node, 0.0)
		}
		return 0
	}
	cores := n.Status.Allocatable.Cpu().AsApproximateFloat64()
	c.nodeCPUs.Store(node, cores)
	return cores
}
