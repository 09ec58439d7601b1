package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Heartbeats, as a kubelet's defaults.
const (
	leaseDuration  = 40 * time.Second
	leaseRenewal   = 10 * time.Second
	statusInterval = time.Minute
)

// nodeLabels are the well-known labels a kubelet gives its node.
func nodeLabels(name string) map[string]string {
	return map[string]string{
		"kubernetes.io/hostname":  name,
		"kubernetes.io/os":        "linux",
		"kubernetes.io/arch":      runtime.GOARCH,
		"beta.kubernetes.io/os":   "linux",
		"beta.kubernetes.io/arch": runtime.GOARCH,
	}
}

// nodeStatus is a Ready node's status with heartbeats at now.
func (r *runner) nodeStatus(name string, now metav1.Time) corev1.NodeStatus {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    r.cfg.cpu,
		corev1.ResourceMemory: r.cfg.memory,
		corev1.ResourcePods:   *resource.NewQuantity(r.cfg.maxPods, resource.DecimalSI),
	}
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	return corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity.DeepCopy(),
		Conditions: []corev1.NodeCondition{
			cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: hostIP},
			{Type: corev1.NodeHostName, Address: name},
		},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(r.port)}},
		NodeInfo: corev1.NodeSystemInfo{
			KubeletVersion:          "v1.34.2",
			OperatingSystem:         "linux",
			Architecture:            runtime.GOARCH,
			OSImage:                 "latlab test pod runner",
			ContainerRuntimeVersion: "podrunner://1",
			MachineID:               fmt.Sprintf("latlab-%d-%s", r.slot, name),
			SystemUUID:              fmt.Sprintf("latlab-%d-%s", r.slot, name),
			BootID:                  fmt.Sprintf("latlab-%d-%s", r.slot, name),
		},
	}
}

// registerNodes creates the runner's nodes, or takes over those a
// previous runner made, Ready and untainted, with their Leases.
func (r *runner) registerNodes(ctx context.Context) error {
	for _, name := range r.nodes {
		var err error
		for attempt := 0; attempt < 10; attempt++ {
			if err = r.registerNode(ctx, name); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
		if err != nil {
			return fmt.Errorf("registering node %s: %w", name, err)
		}
	}
	return nil
}

func (r *runner) registerNode(ctx context.Context, name string) error {
	nodes := r.cs.CoreV1().Nodes()
	n, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels(name)}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		n, err = nodes.Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return err
	}
	// The TaintNodesByCondition admission plugin taints a new node
	// not-ready until the node lifecycle controller sees it Ready; the
	// test cluster runs no such controller, so the node, Ready from the
	// start, goes without the taint.
	var taints []corev1.Taint
	for _, t := range n.Spec.Taints {
		if t.Key != corev1.TaintNodeNotReady {
			taints = append(taints, t)
		}
	}
	if len(taints) != len(n.Spec.Taints) {
		n.Spec.Taints = taints
		if n, err = nodes.Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	n.Status = r.nodeStatus(name, metav1.Now())
	if _, err := nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		return err
	}
	return r.renewLease(ctx, n)
}

// renewLease renews node n's Lease in kube-node-lease, creating it if
// need be.
func (r *runner) renewLease(ctx context.Context, n *corev1.Node) error {
	leases := r.cs.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(time.Now())
	l, err := leases.Get(ctx, n.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		seconds := int32(leaseDuration / time.Second)
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, Namespace: corev1.NamespaceNodeLease,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &n.Name, LeaseDurationSeconds: &seconds, RenewTime: &now},
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime = &now
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

// heartbeat renews the nodes' Leases every 10 s and posts their status
// every minute, until ctx ends.
func (r *runner) heartbeat(ctx context.Context) {
	tick := time.NewTicker(leaseRenewal)
	defer tick.Stop()
	lastStatus := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		status := time.Since(lastStatus) >= statusInterval
		if status {
			lastStatus = time.Now()
		}
		for _, name := range r.nodes {
			n, err := r.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err == nil && status {
				old := n.Status.Conditions
				n.Status = r.nodeStatus(name, metav1.Now())
				for i, c := range n.Status.Conditions {
					for _, o := range old {
						if o.Type == c.Type && o.Status == c.Status {
							n.Status.Conditions[i].LastTransitionTime = o.LastTransitionTime
						}
					}
				}
				_, err = r.cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
			}
			if err == nil {
				err = r.renewLease(ctx, n)
			}
			if err != nil && ctx.Err() == nil {
				r.log.Warn("node heartbeat", "node", name, "err", err)
			}
		}
	}
}
