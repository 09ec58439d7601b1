package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ctr is a container in one of the states the phase depends on.
func ctr(state string) *container {
	c := &container{spec: &corev1.Container{Name: state}}
	ended := func(code int32) {
		c.run = &instance{exited: make(chan struct{}), term: &corev1.ContainerStateTerminated{ExitCode: code}}
		close(c.run.exited)
		c.endSeen = true
	}
	switch state {
	case "running":
		c.run = &instance{exited: make(chan struct{})}
	case "succeeded":
		ended(0)
	case "failed":
		ended(1)
	case "waiting":
	}
	return c
}

func TestPhase(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   corev1.RestartPolicy
		deleting bool
		init     []string
		ctrs     []string
		want     corev1.PodPhase
	}{
		{"not started", corev1.RestartPolicyAlways, false, nil, []string{"waiting"}, corev1.PodPending},
		{"one of two started", corev1.RestartPolicyAlways, false, nil, []string{"running", "waiting"}, corev1.PodPending},
		{"running", corev1.RestartPolicyAlways, false, nil, []string{"running", "running"}, corev1.PodRunning},
		{"always restarts", corev1.RestartPolicyAlways, false, nil, []string{"succeeded"}, corev1.PodRunning},
		{"never, succeeded", corev1.RestartPolicyNever, false, nil, []string{"succeeded", "succeeded"}, corev1.PodSucceeded},
		{"never, one failed", corev1.RestartPolicyNever, false, nil, []string{"succeeded", "failed"}, corev1.PodFailed},
		{"never, one still runs", corev1.RestartPolicyNever, false, nil, []string{"failed", "running"}, corev1.PodRunning},
		{"on failure, failed", corev1.RestartPolicyOnFailure, false, nil, []string{"failed"}, corev1.PodRunning},
		{"on failure, succeeded", corev1.RestartPolicyOnFailure, false, nil, []string{"succeeded"}, corev1.PodSucceeded},
		{"deleted, stopped", corev1.RestartPolicyAlways, true, nil, []string{"failed"}, corev1.PodFailed},
		{"init runs", corev1.RestartPolicyAlways, false, []string{"running"}, []string{"waiting"}, corev1.PodPending},
		{"init failed, never", corev1.RestartPolicyNever, false, []string{"failed"}, []string{"waiting"}, corev1.PodFailed},
		{"init failed, on failure", corev1.RestartPolicyOnFailure, false, []string{"failed"}, []string{"waiting"}, corev1.PodPending},
		{"init done", corev1.RestartPolicyAlways, false, []string{"succeeded"}, []string{"running"}, corev1.PodRunning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &podWorker{pod: &corev1.Pod{Spec: corev1.PodSpec{RestartPolicy: tc.policy}}}
			if tc.deleting {
				w.pod.DeletionTimestamp = &metav1.Time{}
			}
			for _, s := range tc.init {
				c := ctr(s)
				c.init = true
				w.init = append(w.init, c)
			}
			for _, s := range tc.ctrs {
				w.ctrs = append(w.ctrs, ctr(s))
			}
			if got := w.phase(); got != tc.want {
				t.Errorf("phase %s, want %s", got, tc.want)
			}
		})
	}
}
