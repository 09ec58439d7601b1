package cluster

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// pollEvery is how often WaitReady looks at what it waits for.
var pollEvery = time.Second

// A NotReadyError is a Set that did not become ready in time: what was
// not ready, each with why as far as its pods and events tell.
type NotReadyError struct {
	Timeout time.Duration
	Waiting []string // one paragraph per object not ready
}

func (e *NotReadyError) Error() string {
	return fmt.Sprintf("not ready after %v:\n  %s", e.Timeout, strings.Join(e.Waiting, "\n  "))
}

// WaitReady waits until every workload of set has rolled out (its pods
// updated, ready and available, old ones gone) and every Service with a
// selector has a ready endpoint, and stays so from one look to the next,
// a second later, with the same pods and no restart between: a container
// that crashes at once is ready for a moment, without a readiness probe.
// Or it waits until timeout has passed; then it returns a *NotReadyError
// naming what is not ready and why: a pod's waiting reason, its last exit,
// why it cannot be scheduled, its last warning events.
func (c *Cluster) WaitReady(ctx context.Context, set *Set, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last map[types.UID]int32 // the pods and their restarts at the last look that found all ready
	for {
		waiting, pods, err := c.notReady(ctx, set, false)
		if err != nil {
			return err
		}
		if len(waiting) == 0 {
			restarts, err := c.restarts(ctx, pods)
			if err != nil {
				return err
			}
			if last != nil && maps.Equal(last, restarts) {
				return nil
			}
			last = restarts
		} else {
			last = nil
		}
		if !time.Now().Before(deadline) {
			// Look once more, asking the pods why.
			why, _, err := c.notReady(ctx, set, true)
			if err != nil {
				return err
			}
			if len(why) == 0 {
				for _, p := range pods {
					why = append(why, p.ref+": ready now and then, but its pods restart or change"+c.explainPods(ctx, p.namespace, p.sel))
				}
			}
			return &NotReadyError{Timeout: timeout, Waiting: why}
		}
		t := time.NewTimer(min(pollEvery, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			if len(waiting) == 0 {
				waiting = []string{"the pods to stay ready"}
			}
			return fmt.Errorf("waiting for %s: %w", strings.Join(waiting, "; "), ctx.Err())
		case <-t.C:
		}
	}
}

// podSet is the pods of a workload: its namespace and selector.
type podSet struct {
	ref       string // the workload, as Ref.String names it
	namespace string
	sel       labels.Selector
}

// restarts returns the restarts of every pod of pods, by pod.
func (c *Cluster) restarts(ctx context.Context, pods []podSet) (map[types.UID]int32, error) {
	out := map[types.UID]int32{}
	for _, ps := range pods {
		found, err := list[corev1.PodList](ctx, c.coreV1, "pods", ps.namespace, metav1.ListOptions{LabelSelector: ps.sel.String()})
		if err != nil {
			return nil, fmt.Errorf("listing pods %s in %s: %w", ps.sel, ps.namespace, err)
		}
		for _, p := range found.Items {
			var n int32
			for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
				n += cs.RestartCount
			}
			out[p.UID] = n
		}
	}
	return out, nil
}

// notReady returns what of set is not ready, each with why when explain
// is set, and the pods of its workloads.
func (c *Cluster) notReady(ctx context.Context, set *Set, explain bool) ([]string, []podSet, error) {
	var out []string
	var pods []podSet
	for _, r := range set.Refs {
		msg, sel, err := c.readiness(ctx, r)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", r, err)
		}
		if sel != nil && r.Kind != "Service" {
			pods = append(pods, podSet{r.String(), r.Namespace, sel})
		}
		if msg == "" {
			continue
		}
		msg = r.String() + ": " + msg
		if explain && sel != nil {
			msg += c.explainPods(ctx, r.Namespace, sel)
		}
		out = append(out, msg)
	}
	return out, pods, nil
}

// readiness returns why the object r is not ready ("" when it is) and the
// selector of its pods.
func (c *Cluster) readiness(ctx context.Context, r Ref) (string, labels.Selector, error) {
	switch {
	case r.Kind == "Deployment" && r.Resource.Group == "apps":
		return c.deploymentReadiness(ctx, r)
	case r.Kind == "StatefulSet" && r.Resource.Group == "apps":
		return c.statefulSetReadiness(ctx, r)
	case r.Kind == "DaemonSet" && r.Resource.Group == "apps":
		return c.daemonSetReadiness(ctx, r)
	case r.Kind == "Service" && r.Resource.Group == "":
		return c.serviceReadiness(ctx, r)
	case r.Kind == "Pod" && r.Resource.Group == "":
		p, err := get[corev1.Pod](ctx, c.coreV1, "pods", r.Namespace, r.Name)
		if err != nil {
			return "", nil, err
		}
		if !podReady(p) {
			return "not ready", labels.SelectorFromSet(p.Labels), nil
		}
	}
	return "", nil, nil
}

// notSeen is why a workload whose controller lags its spec is not ready.
const notSeen = "its controller has not seen the latest spec yet"

func (c *Cluster) deploymentReadiness(ctx context.Context, r Ref) (string, labels.Selector, error) {
	d, err := get[appsv1.Deployment](ctx, c.appsV1, "deployments", r.Namespace, r.Name)
	if err != nil {
		return "", nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return "", nil, err
	}
	want := replicas(d.Spec.Replicas)
	s := d.Status
	switch {
	case s.ObservedGeneration < d.Generation:
		return notSeen, sel, nil
	case s.UpdatedReplicas < want || s.AvailableReplicas < want || s.Replicas > s.UpdatedReplicas:
		msg := fmt.Sprintf("%d of %d replicas updated and available", min(s.UpdatedReplicas, s.AvailableReplicas), want)
		if s.Replicas > s.UpdatedReplicas {
			msg += fmt.Sprintf(", %d old ones still running", s.Replicas-s.UpdatedReplicas)
		}
		for _, cond := range d.Status.Conditions {
			if cond.Reason == "ProgressDeadlineExceeded" || cond.Type == "ReplicaFailure" {
				msg += fmt.Sprintf(" (%s: %s)", cond.Reason, cond.Message)
			}
		}
		return msg, sel, nil
	}
	return "", sel, nil
}

func (c *Cluster) statefulSetReadiness(ctx context.Context, r Ref) (string, labels.Selector, error) {
	st, err := get[appsv1.StatefulSet](ctx, c.appsV1, "statefulsets", r.Namespace, r.Name)
	if err != nil {
		return "", nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(st.Spec.Selector)
	if err != nil {
		return "", nil, err
	}
	want, s := replicas(st.Spec.Replicas), st.Status
	switch {
	case s.ObservedGeneration < st.Generation:
		return notSeen, sel, nil
	case s.ReadyReplicas < want || s.UpdatedReplicas < want || (s.UpdateRevision != "" && s.CurrentRevision != s.UpdateRevision):
		return fmt.Sprintf("%d of %d replicas ready, %d updated", s.ReadyReplicas, want, s.UpdatedReplicas), sel, nil
	}
	return "", sel, nil
}

func (c *Cluster) daemonSetReadiness(ctx context.Context, r Ref) (string, labels.Selector, error) {
	ds, err := get[appsv1.DaemonSet](ctx, c.appsV1, "daemonsets", r.Namespace, r.Name)
	if err != nil {
		return "", nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return "", nil, err
	}
	s := ds.Status
	switch {
	case s.ObservedGeneration < ds.Generation:
		return notSeen, sel, nil
	case s.NumberReady < s.DesiredNumberScheduled || s.UpdatedNumberScheduled < s.DesiredNumberScheduled:
		return fmt.Sprintf("%d of %d pods ready, %d updated", s.NumberReady, s.DesiredNumberScheduled, s.UpdatedNumberScheduled), sel, nil
	}
	return "", sel, nil
}

func (c *Cluster) serviceReadiness(ctx context.Context, r Ref) (string, labels.Selector, error) {
	svc, err := get[corev1.Service](ctx, c.coreV1, "services", r.Namespace, r.Name)
	if err != nil {
		return "", nil, err
	}
	if len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName {
		return "", nil, nil // its endpoints are someone else's
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	n, err := c.readyEndpoints(ctx, r.Namespace, r.Name)
	if err != nil {
		return "", nil, err
	}
	if n == 0 {
		return "no ready endpoint", sel, nil
	}
	return "", sel, nil
}

// readyEndpoints counts the ready endpoints of the Service name.
func (c *Cluster) readyEndpoints(ctx context.Context, namespace, name string) (int, error) {
	slices, err := list[discoveryv1.EndpointSliceList](ctx, c.discoveryV1, "endpointslices", namespace, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=" + name,
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				n++
			}
		}
	}
	return n, nil
}

// replicas returns a spec's replicas, 1 when unset, as the API defaults it.
func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// podReady says whether p's Ready condition is true.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
