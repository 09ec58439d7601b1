package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// scheduler binds the pending pods of the default scheduler to the
// runner's nodes.
type scheduler struct {
	r       *runner
	wake    chan struct{}
	next    int                  // the node the next pod tries first
	assumed map[types.UID]string // bound, but the informer does not know yet
}

func newScheduler(r *runner) *scheduler {
	return &scheduler{r: r, wake: make(chan struct{}, 1), assumed: map[types.UID]string{}}
}

// changed makes the scheduler look again.
func (s *scheduler) changed() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run schedules whenever pods change, and every 5 s for pods that wait
// for room.
func (s *scheduler) run(ctx context.Context) {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-tick.C:
		}
		s.schedule(ctx)
	}
}

// nodeInfo is what a node has room for.
type nodeInfo struct {
	name        string
	labels      map[string]string
	taints      []corev1.Taint
	cpu, memory int64 // milli-cpu and bytes left
	pods        int64 // pods left
}

// schedule binds every pending pod it can, oldest first.
func (s *scheduler) schedule(ctx context.Context) {
	all, err := s.r.pods.List(labels.Everything())
	if err != nil {
		return
	}
	nodes := s.r.nodeInfos()
	byName := map[string]*nodeInfo{}
	for _, n := range nodes {
		byName[n.name] = n
	}
	var pending []*corev1.Pod
	seen := map[types.UID]bool{}
	for _, p := range all {
		seen[p.UID] = true
		node := p.Spec.NodeName
		if node == "" {
			node = s.assumed[p.UID]
		} else {
			delete(s.assumed, p.UID)
		}
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if n := byName[node]; n != nil {
			cpu, mem := requests(p)
			n.cpu, n.memory, n.pods = n.cpu-cpu, n.memory-mem, n.pods-1
			continue
		}
		if node == "" && p.DeletionTimestamp == nil && (p.Spec.SchedulerName == "" || p.Spec.SchedulerName == corev1.DefaultSchedulerName) {
			pending = append(pending, p)
		}
	}
	for uid := range s.assumed {
		if !seen[uid] {
			delete(s.assumed, uid)
		}
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].CreationTimestamp.Before(&pending[j].CreationTimestamp) })
	for _, p := range pending {
		n, why := s.pick(p, nodes)
		if n == nil {
			s.unschedulable(ctx, p, why, len(nodes))
			continue
		}
		err := s.r.cs.CoreV1().Pods(p.Namespace).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: n.name},
		}, metav1.CreateOptions{})
		if err != nil {
			if !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				s.r.log.Warn("binding a pod", "pod", p.Namespace+"/"+p.Name, "err", err)
			}
			continue
		}
		s.assumed[p.UID] = n.name
		cpu, mem := requests(p)
		n.cpu, n.memory, n.pods = n.cpu-cpu, n.memory-mem, n.pods-1
		s.r.event(p, corev1.EventTypeNormal, "Scheduled", fmt.Sprintf("Successfully assigned %s/%s to %s", p.Namespace, p.Name, n.name))
	}
}

// pick returns the node for p, trying the nodes in turn from the one
// after the last pick; or nil and, for each reason, how many nodes it
// ruled out.
func (s *scheduler) pick(p *corev1.Pod, nodes []*nodeInfo) (*nodeInfo, map[string]int) {
	why := map[string]int{}
	cpu, mem := requests(p)
	for i := range nodes {
		n := nodes[(s.next+i)%len(nodes)]
		var reasons []string
		if !matchesNode(p, n) {
			reasons = append(reasons, "node(s) didn't match Pod's node affinity/selector")
		} else if t := untolerated(p, n); t != nil {
			reasons = append(reasons, fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value))
		} else {
			if n.pods < 1 {
				reasons = append(reasons, "Too many pods")
			}
			if cpu > n.cpu {
				reasons = append(reasons, "Insufficient cpu")
			}
			if mem > n.memory {
				reasons = append(reasons, "Insufficient memory")
			}
		}
		if len(reasons) == 0 {
			s.next = (s.next + i + 1) % len(nodes)
			return n, nil
		}
		for _, r := range reasons {
			why[r]++
		}
	}
	return nil, why
}

// unschedulable marks p PodScheduled=False, as the scheduler does, when
// it does not say so already.
func (s *scheduler) unschedulable(ctx context.Context, p *corev1.Pod, why map[string]int, nodes int) {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(why)) {
		parts = append(parts, strconv.Itoa(why[r])+" "+r)
	}
	msg := fmt.Sprintf("0/%d nodes are available: %s. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod.",
		nodes, strings.Join(parts, ", "), nodes, nodes)
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable && c.Message == msg {
			return
		}
	}
	next := p.DeepCopy()
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: msg, LastTransitionTime: metav1.Now()}
	replaced := false
	for i, c := range next.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			next.Status.Conditions[i], replaced = cond, true
		}
	}
	if !replaced {
		next.Status.Conditions = append(next.Status.Conditions, cond)
	}
	if _, err := s.r.cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{}); err != nil {
		if !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			s.r.log.Warn("marking a pod unschedulable", "pod", p.Namespace+"/"+p.Name, "err", err)
		}
		return
	}
	s.r.event(p, corev1.EventTypeWarning, "FailedScheduling", msg)
}

// requests returns what p asks of a node: milli-cpu and bytes of memory,
// the larger of its containers' sum and any init container's, plus its
// overhead.
func requests(p *corev1.Pod) (cpu, mem int64) {
	for _, c := range p.Spec.Containers {
		cpu += c.Resources.Requests.Cpu().MilliValue()
		mem += c.Resources.Requests.Memory().Value()
	}
	for _, c := range p.Spec.InitContainers {
		cpu = max(cpu, c.Resources.Requests.Cpu().MilliValue())
		mem = max(mem, c.Resources.Requests.Memory().Value())
	}
	if o := p.Spec.Overhead; o != nil {
		cpu += o.Cpu().MilliValue()
		mem += o.Memory().Value()
	}
	return cpu, mem
}

// matchesNode tells whether p's nodeSelector and required node affinity
// allow node n.
func matchesNode(p *corev1.Pod, n *nodeInfo) bool {
	for k, v := range p.Spec.NodeSelector {
		if n.labels[k] != v {
			return false
		}
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	// The terms are ORed; the requirements of a term ANDed.
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		ok := len(t.MatchExpressions)+len(t.MatchFields) > 0
		for _, e := range t.MatchExpressions {
			v, has := n.labels[e.Key]
			ok = ok && matchRequirement(e, v, has)
		}
		for _, e := range t.MatchFields {
			ok = ok && e.Key == "metadata.name" && matchRequirement(e, n.name, true)
		}
		if ok {
			return true
		}
	}
	return false
}

func matchRequirement(e corev1.NodeSelectorRequirement, v string, has bool) bool {
	switch e.Operator {
	case corev1.NodeSelectorOpIn:
		return has && slices.Contains(e.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !has || !slices.Contains(e.Values, v)
	case corev1.NodeSelectorOpExists:
		return has
	case corev1.NodeSelectorOpDoesNotExist:
		return !has
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !has || len(e.Values) != 1 {
			return false
		}
		a, err1 := strconv.ParseInt(v, 10, 64)
		b, err2 := strconv.ParseInt(e.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return (e.Operator == corev1.NodeSelectorOpGt && a > b) || (e.Operator == corev1.NodeSelectorOpLt && a < b)
	}
	return false
}

// untolerated returns the first taint of n that keeps p off it, nil when
// p tolerates them all. The node lifecycle's own taints
// (node.kubernetes.io/...) are not honoured: the nodes are all this
// process, Ready while it runs, and a heartbeat late on a busy machine
// would otherwise stop every pod of the cluster from being scheduled.
func untolerated(p *corev1.Pod, n *nodeInfo) *corev1.Taint {
	for i := range n.taints {
		t := &n.taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule || strings.HasPrefix(t.Key, "node.kubernetes.io/") {
			continue
		}
		if !slices.ContainsFunc(p.Spec.Tolerations, func(tol corev1.Toleration) bool { return tol.ToleratesTaint(klog.Background(), t, false) }) {
			return t
		}
	}
	return nil
}

// nodeInfos returns the runner's nodes with all their room, and the
// labels and taints their Node objects have now.
func (r *runner) nodeInfos() []*nodeInfo {
	var out []*nodeInfo
	for _, name := range r.nodes {
		n := &nodeInfo{
			name: name, labels: nodeLabels(name),
			cpu: r.cfg.cpu.MilliValue(), memory: r.cfg.memory.Value(), pods: r.cfg.maxPods,
		}
		if r.nodeObjs != nil {
			if obj, err := r.nodeObjs.Get(name); err == nil {
				n.labels, n.taints = obj.Labels, obj.Spec.Taints
			}
		}
		out = append(out, n)
	}
	return out
}
