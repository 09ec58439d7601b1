package cluster

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// Bounds of an explanation, so that a Deployment of a hundred failing pods
// gives a paragraph rather than a page.
const (
	maxExplained = 3 // pods described per object
	maxEvents    = 3 // events per pod
)

// explainPods returns, one line each, why the pods of sel in namespace are
// not ready, and their last warning events.
func (c *Cluster) explainPods(ctx context.Context, namespace string, sel labels.Selector) string {
	pods, err := list[corev1.PodList](ctx, c.coreV1, "pods", namespace, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return fmt.Sprintf("\n    (its pods could not be listed: %v)", err)
	}
	if len(pods.Items) == 0 {
		return "\n    no pod exists for it (see its controller's events: kubectl describe)"
	}
	var b strings.Builder
	shown := 0
	for i := range pods.Items {
		p := &pods.Items[i]
		if podReady(p) {
			continue
		}
		if shown == maxExplained {
			fmt.Fprintf(&b, "\n    and more pods")
			break
		}
		shown++
		fmt.Fprintf(&b, "\n    pod %s: %s", p.Name, PodProblem(p))
		for _, e := range c.podEvents(ctx, p) {
			fmt.Fprintf(&b, "\n      event %s: %s", e.Reason, strings.TrimSpace(e.Message))
		}
	}
	return b.String()
}

// podEvents returns the last warning events of p, oldest first.
func (c *Cluster) podEvents(ctx context.Context, p *corev1.Pod) []corev1.Event {
	sel := fields.Set{"involvedObject.name": p.Name, "involvedObject.namespace": p.Namespace, "type": corev1.EventTypeWarning}
	evs, err := list[corev1.EventList](ctx, c.coreV1, "events", p.Namespace, metav1.ListOptions{FieldSelector: sel.AsSelector().String()})
	if err != nil || len(evs.Items) == 0 {
		return nil
	}
	items := evs.Items
	slices.SortFunc(items, func(a, b corev1.Event) int { return cmp.Compare(eventTime(a).UnixNano(), eventTime(b).UnixNano()) })
	return items[max(0, len(items)-maxEvents):]
}

// eventTime returns when e last happened.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// PodProblem returns why p is not running and ready, as a kubelet and the
// scheduler report it: it cannot be scheduled, a container waits (and
// why), has exited or restarts, or runs but is not ready.
func PodProblem(p *corev1.Pod) string {
	var parts []string
	if p.Status.Reason != "" {
		parts = append(parts, fmt.Sprintf("%s: %s", p.Status.Reason, p.Status.Message))
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			parts = append(parts, fmt.Sprintf("not scheduled: %s: %s", cmp.Or(cond.Reason, "Pending"), cond.Message))
		}
	}
	statuses := append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...)
	for _, s := range statuses {
		if msg := containerProblem(s); msg != "" {
			parts = append(parts, "container "+s.Name+" "+msg)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("phase %s, not ready", cmp.Or(string(p.Status.Phase), "unknown")))
	}
	return strings.Join(parts, "; ")
}

// containerProblem returns what is wrong with the container s, or "".
func containerProblem(s corev1.ContainerStatus) string {
	var msg string
	switch st := s.State; {
	case st.Waiting != nil:
		msg = "waiting: " + st.Waiting.Reason
		if st.Waiting.Message != "" {
			msg += ": " + strings.TrimSpace(st.Waiting.Message)
		}
	case st.Terminated != nil:
		msg = "exited " + exitText(st.Terminated)
	case st.Running != nil && !s.Ready:
		msg = "running, not ready"
	default:
		return ""
	}
	if s.RestartCount > 0 {
		msg += fmt.Sprintf("; restarted %d times", s.RestartCount)
		if t := s.LastTerminationState.Terminated; t != nil {
			msg += ", last exit " + exitText(t)
		}
	}
	return msg
}

// exitText returns a container's exit: its code, reason and message.
func exitText(t *corev1.ContainerStateTerminated) string {
	s := fmt.Sprintf("%d", t.ExitCode)
	if t.Reason != "" {
		s += " (" + t.Reason + ")"
	}
	if m := strings.TrimSpace(t.Message); m != "" {
		s += ": " + m
	}
	return s
}
