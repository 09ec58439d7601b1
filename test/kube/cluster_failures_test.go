package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// shPod is a pod of one container running script with sh.
func shPod(name string, policy corev1.RestartPolicy, script string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: policy,
			Containers:    []corev1.Container{{Name: "main", Image: image, Command: []string{"sh", "-c", script}}},
		},
	}
}

// TestClusterFailures makes the test cluster report what goes wrong as
// a real one does: a Job whose command fails ends Failed with the exit
// code in its pod's status and the command's output in its log; an image
// with no binary is ErrImagePull; a pod that fits no node is
// Unschedulable; a container that keeps failing is in CrashLoopBackOff,
// its previous run's log at hand; an exec readiness probe holds a pod
// unready until it passes; a pod that ignores SIGTERM is killed after
// its grace period. It runs beside TestClusterServices, each with a
// cluster of its own.
func TestClusterFailures(t *testing.T) {
	t.Parallel()
	c := upCluster(t, "--restart-backoff", "1s", "--max-restart-backoff", "8s")
	ctx := context.Background()
	ns := c.namespace(t, "failures")
	create := func(p *corev1.Pod) {
		t.Helper()
		if _, err := c.cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fail := job("fail", shPod("", corev1.RestartPolicyNever, "echo about to fail >&2; exit 3").Spec.Containers)
	if _, err := c.cs.BatchV1().Jobs(ns).Create(ctx, fail, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nopull := shPod("nopull", corev1.RestartPolicyAlways, "true")
	nopull.Spec.Containers[0].Image = "registry.example/not-mapped:1"
	create(nopull)
	huge := shPod("huge", corev1.RestartPolicyAlways, "sleep 600")
	huge.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000")}
	create(huge)
	create(shPod("crash", corev1.RestartPolicyAlways, "echo crashing; exit 1"))
	probe := shPod("probe", corev1.RestartPolicyAlways, "sleep 3; touch /tmp/ready; exec sleep 600")
	probe.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"test", "-e", "/tmp/ready"}}},
		PeriodSeconds: 1,
	}
	probe.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}
	probe.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	create(probe)
	stubborn := shPod("stubborn", corev1.RestartPolicyAlways, `trap "" TERM; echo started; while :; do sleep 1; done`)
	stubborn.Spec.TerminationGracePeriodSeconds = ptr.To[int64](2)
	create(stubborn)

	t.Run("failing job", func(t *testing.T) {
		c.waitJob(t, ns, "fail", batchv1.JobFailed)
		p := c.jobPod(t, ns, "fail")
		if p.Status.Phase != corev1.PodFailed {
			t.Errorf("pod phase %s, want Failed", p.Status.Phase)
		}
		term := p.Status.ContainerStatuses[0].State.Terminated
		if term == nil || term.ExitCode != 3 || term.Reason != "Error" {
			t.Errorf("container state %+v, want terminated with exit code 3, reason Error", p.Status.ContainerStatuses[0].State)
		}
		if got := c.logs(t, ns, p.Name, &corev1.PodLogOptions{}); got != "about to fail\n" {
			t.Errorf("log %q, want %q", got, "about to fail\n")
		}
	})

	t.Run("unmapped image", func(t *testing.T) {
		poll(t, 2*time.Minute, "ErrImagePull", func() (bool, string) {
			p, why := c.pod(ns, "nopull")
			if p == nil || len(p.Status.ContainerStatuses) == 0 {
				return false, why
			}
			w := p.Status.ContainerStatuses[0].State.Waiting
			return w != nil && w.Reason == "ErrImagePull" && strings.Contains(w.Message, nopull.Spec.Containers[0].Image),
				fmt.Sprintf("%+v", p.Status.ContainerStatuses[0].State)
		})
	})

	t.Run("unschedulable", func(t *testing.T) {
		poll(t, 2*time.Minute, "Unschedulable", func() (bool, string) {
			p, why := c.pod(ns, "huge")
			if p == nil {
				return false, why
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable &&
					strings.Contains(cond.Message, "0/2 nodes are available: 2 Insufficient cpu.") && p.Spec.NodeName == "" {
					return true, ""
				}
			}
			return false, fmt.Sprintf("node %q, conditions %+v", p.Spec.NodeName, p.Status.Conditions)
		})
	})

	t.Run("crash loop", func(t *testing.T) {
		poll(t, 2*time.Minute, "CrashLoopBackOff", func() (bool, string) {
			p, why := c.pod(ns, "crash")
			if p == nil || len(p.Status.ContainerStatuses) == 0 {
				return false, why
			}
			s := p.Status.ContainerStatuses[0]
			last := s.LastTerminationState.Terminated
			ok := s.State.Waiting != nil && s.State.Waiting.Reason == "CrashLoopBackOff" && s.RestartCount >= 2 &&
				last != nil && last.ExitCode == 1 && p.Status.Phase == corev1.PodRunning
			return ok, fmt.Sprintf("phase %s, %+v", p.Status.Phase, s)
		})
		if got := c.logs(t, ns, "crash", &corev1.PodLogOptions{Previous: true}); got != "crashing\n" {
			t.Errorf("previous log %q, want %q", got, "crashing\n")
		}
	})

	t.Run("exec readiness probe", func(t *testing.T) {
		poll(t, 2*time.Minute, "pod probe ready", func() (bool, string) {
			p, why := c.pod(ns, "probe")
			if p == nil {
				return false, why
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
					// Ready only once the file was there: 3 s after the start.
					if s := p.Status.ContainerStatuses[0].State.Running; s == nil || cond.LastTransitionTime.Sub(s.StartedAt.Time) < 2*time.Second {
						t.Errorf("ready at %v, started %+v: before the probe could pass", cond.LastTransitionTime, s)
					}
					return true, ""
				}
			}
			return false, fmt.Sprintf("phase %s, conditions %+v", p.Status.Phase, p.Status.Conditions)
		})
	})

	t.Run("grace period", func(t *testing.T) {
		poll(t, 2*time.Minute, "pod stubborn running", func() (bool, string) {
			p, why := c.pod(ns, "stubborn")
			if p == nil {
				return false, why
			}
			return p.Status.Phase == corev1.PodRunning, string(p.Status.Phase)
		})
		if err := c.cs.CoreV1().Pods(ns).Delete(ctx, "stubborn", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		poll(t, 2*time.Minute, "pod stubborn gone", func() (bool, string) {
			_, err := c.cs.CoreV1().Pods(ns).Get(ctx, "stubborn", metav1.GetOptions{})
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	})

	c.stop(t)
	if left := c.leftovers(t); len(left) > 0 {
		t.Errorf("down.sh left:\n%s", strings.Join(left, "\n"))
	}
}
