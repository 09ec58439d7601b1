package main

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hostIP is every node's address: the runner's kubelet server listens on
// it. A pod cannot reach it: 127.0.0.1 in a pod is the pod's own.
const hostIP = "127.0.0.1"

// phase returns the pod's phase by the kubelet's rules: Pending until the
// init containers have succeeded and every container has started; then
// Running while any runs or will run again; then Succeeded when all
// ended with 0, else Failed. A pod being deleted whose containers have
// all ended is Succeeded or Failed whatever its restartPolicy.
func (w *podWorker) phase() corev1.PodPhase {
	policy := w.pod.Spec.RestartPolicy
	for _, c := range w.init {
		if c.sidecar {
			continue
		}
		if c.ended() && !c.succeeded() && policy == corev1.RestartPolicyNever {
			return corev1.PodFailed
		}
		if !c.succeeded() {
			return corev1.PodPending
		}
	}
	var running, waiting, stopped, succeeded int
	for _, c := range w.ctrs {
		switch {
		case c.alive():
			running++
		case c.ended():
			stopped++
			if c.succeeded() {
				succeeded++
			}
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return corev1.PodPending
	case running > 0:
		return corev1.PodRunning
	case stopped == 0:
		return corev1.PodPending
	case w.pod.DeletionTimestamp != nil || policy == corev1.RestartPolicyNever:
		if stopped == succeeded {
			return corev1.PodSucceeded
		}
		return corev1.PodFailed
	case policy == corev1.RestartPolicyAlways:
		return corev1.PodRunning
	case stopped == succeeded: // OnFailure
		return corev1.PodSucceeded
	}
	return corev1.PodRunning // OnFailure, restarting what failed
}

// containerStatus returns what a kubelet reports of c.
func (w *podWorker) containerStatus(c *container, initDone bool) corev1.ContainerStatus {
	s := corev1.ContainerStatus{
		Name:         c.spec.Name,
		Image:        c.spec.Image,
		RestartCount: c.restarts,
	}
	if bin, ok := w.r.cfg.images[c.spec.Image]; ok {
		s.ImageID = "podrunner://" + bin
	}
	if c.last != nil {
		s.LastTerminationState.Terminated = c.last
	}
	started := false
	switch {
	case c.alive():
		s.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(c.run.started)}
		s.ContainerID = c.run.id
		s.Ready = c.ready
		started = c.started
	case c.waiting != nil:
		s.State.Waiting = c.waiting
		if c.ended() {
			// Waiting to restart: the run that ended is the last state.
			s.LastTerminationState.Terminated = c.run.term
			s.ContainerID = c.run.id
		}
	case c.ended():
		s.State.Terminated = c.run.term
		s.ContainerID = c.run.id
	case !initDone || c.init:
		s.State.Waiting = &corev1.ContainerStateWaiting{Reason: "PodInitializing"}
	default:
		s.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
	}
	s.Started = &started
	return s
}

// status returns the pod's status for the API: base's, with what the
// runner owns replaced: phase, addresses, start time, container statuses
// and the conditions PodReadyToStartContainers, Initialized,
// ContainersReady and Ready. Conditions keep their transition times while
// they hold.
func (w *podWorker) status(base *corev1.Pod) *corev1.PodStatus {
	st := base.Status.DeepCopy()
	if w.reported != nil {
		// The informer's copy may not have our last write yet.
		for _, c := range w.reported.Conditions {
			setCondition(st, c)
		}
	}
	st.Phase = w.phase()
	st.HostIP, st.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
	if w.sb != nil {
		ip := w.sb.ip.String()
		st.PodIP, st.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	}
	st.StartTime = &w.startTime

	var notInit, notReady []string
	st.InitContainerStatuses = nil
	for _, c := range w.init {
		if (c.sidecar && !(c.alive() && c.started)) || (!c.sidecar && !c.succeeded()) {
			notInit = append(notInit, c.spec.Name)
		}
	}
	initDone := len(notInit) == 0
	for _, c := range w.init {
		st.InitContainerStatuses = append(st.InitContainerStatuses, w.containerStatus(c, initDone))
	}
	st.ContainerStatuses = nil
	for _, c := range w.ctrs {
		cs := w.containerStatus(c, initDone)
		if !cs.Ready {
			notReady = append(notReady, c.spec.Name)
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}

	terminal := st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed
	cond := func(t corev1.PodConditionType, ok bool, reason, msg string) {
		c := corev1.PodCondition{Type: t, Status: corev1.ConditionTrue}
		if !ok {
			c.Status, c.Reason, c.Message = corev1.ConditionFalse, reason, msg
		}
		setCondition(st, c)
	}
	cond(corev1.PodReadyToStartContainers, w.sb != nil && !w.sb.removed, "", "")
	cond(corev1.PodInitialized, initDone, "ContainersNotInitialized", fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(notInit, " ")))
	readyMsg := fmt.Sprintf("containers with unready status: [%s]", strings.Join(notReady, " "))
	ready, reason := len(notReady) == 0, "ContainersNotReady"
	if terminal {
		ready, reason = false, "PodCompleted"
		readyMsg = ""
	}
	cond(corev1.ContainersReady, ready, reason, readyMsg)
	for _, g := range base.Spec.ReadinessGates {
		if !conditionTrue(st, g.ConditionType) {
			ready, reason, readyMsg = false, "ReadinessGatesNotReady", fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist or is not True", g.ConditionType)
		}
	}
	cond(corev1.PodReady, ready, reason, readyMsg)
	return st
}

// setCondition puts c in st, keeping the transition time of the condition
// it replaces when the status is the same.
func setCondition(st *corev1.PodStatus, c corev1.PodCondition) {
	for i, old := range st.Conditions {
		if old.Type != c.Type {
			continue
		}
		c.LastTransitionTime = old.LastTransitionTime
		if old.Status != c.Status || c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = metav1.Now()
		}
		c.LastProbeTime = old.LastProbeTime
		st.Conditions[i] = c
		return
	}
	c.LastTransitionTime = metav1.Now()
	st.Conditions = append(st.Conditions, c)
}

func conditionTrue(st *corev1.PodStatus, t corev1.PodConditionType) bool {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
