package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// errImagePullShown is how long a failed pull shows as ErrImagePull before
// it shows as ImagePullBackOff until the next attempt.
const errImagePullShown = 5 * time.Second

// alive tells whether c's current run has started and its end is not
// known to the worker yet.
func (c *container) alive() bool { return c.run != nil && !c.ended() }

// ended tells whether the worker has seen the current run end.
func (c *container) ended() bool { return c.run != nil && c.endSeen }

// succeeded tells whether c's last run ended with 0.
func (c *container) succeeded() bool { return c.ended() && c.run.term.ExitCode == 0 }

// startContainers starts what should run now: the init containers one
// after the other, each once the one before has succeeded (or, for a
// sidecar, started), then all the others; and it restarts what ended and
// should restart, once its back-off has passed.
func (w *podWorker) startContainers(ctx context.Context) {
	for _, c := range w.init {
		switch {
		case c.sidecar:
			if !c.alive() {
				w.maybeStart(ctx, c)
			}
			if !c.alive() || !c.started {
				return
			}
		case c.succeeded():
			continue
		case c.alive():
			return
		default:
			w.maybeStart(ctx, c)
			return
		}
	}
	for _, c := range w.ctrs {
		if !c.alive() {
			w.maybeStart(ctx, c)
		}
	}
}

// maybeStart starts c unless it ended for good or its back-off has not
// passed.
func (w *podWorker) maybeStart(ctx context.Context, c *container) {
	if c.ended() && !w.restarts(c) {
		return
	}
	now := time.Now()
	if c.waiting != nil && c.waiting.Reason == "ErrImagePull" {
		if shown := c.pullFailed.Add(errImagePullShown); now.Before(shown) {
			w.wakeAt(shown)
		} else if now.Before(c.notBefore) {
			c.waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
				Message: fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", c.spec.Image, c.waiting.Message)}
			w.r.event(w.pod, corev1.EventTypeNormal, "BackOff", fmt.Sprintf("Back-off pulling image %q", c.spec.Image))
		}
	}
	if now.Before(c.notBefore) {
		w.wakeAt(c.notBefore)
		return
	}
	w.startContainer(ctx, c)
}

// restarts tells whether c, whose run ended, runs again: a sidecar
// always; an init container after a failure unless the pod's
// restartPolicy is Never; any other by the pod's restartPolicy.
func (w *podWorker) restarts(c *container) bool {
	if w.terminal || w.pod.DeletionTimestamp != nil {
		return false
	}
	if c.sidecar {
		return true
	}
	failed := c.run.term.ExitCode != 0
	switch w.pod.Spec.RestartPolicy {
	case corev1.RestartPolicyAlways:
		return !c.init || failed
	case corev1.RestartPolicyOnFailure:
		return failed
	}
	return false
}

// startContainer starts a run of c: pulling (finding the image's binary),
// making its environment and mounts, then starting it in the sandbox.
// What fails leaves c waiting with the reason a kubelet would give.
func (w *podWorker) startContainer(ctx context.Context, c *container) {
	name := c.spec.Name
	bin, ok := w.r.cfg.images[c.spec.Image]
	if !ok {
		msg := fmt.Sprintf("failed to pull and unpack image %q: no binary for this image in the test cluster (podrunner --image %s=PATH)", c.spec.Image, c.spec.Image)
		now := time.Now()
		c.waiting = &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: msg}
		c.pullFailed = now
		c.pullBackoff = min(max(2*c.pullBackoff, w.r.cfg.backoff), w.r.cfg.maxBackoff)
		c.notBefore = now.Add(c.pullBackoff)
		w.r.event(w.pod, corev1.EventTypeNormal, "Pulling", fmt.Sprintf("Pulling image %q", c.spec.Image))
		w.r.event(w.pod, corev1.EventTypeWarning, "Failed", "Failed to pull image "+fmt.Sprintf("%q", c.spec.Image)+": "+msg)
		w.wakeAt(now.Add(errImagePullShown))
		return
	}
	retry := func(reason string, err error) {
		c.waiting = &corev1.ContainerStateWaiting{Reason: reason, Message: err.Error()}
		w.r.event(w.pod, corev1.EventTypeWarning, "Failed", "Error: "+err.Error())
		c.notBefore = time.Now().Add(5 * time.Second)
		w.wakeAt(c.notBefore)
	}
	env, err := w.containerEnv(ctx, c.spec)
	if err != nil {
		retry("CreateContainerConfigError", err)
		return
	}
	// Another cluster's runner must not prune a mount point between its
	// making and the container's mount on it.
	unlock, err := lockMountPoints()
	if err != nil {
		retry("CreateContainerError", err)
		return
	}
	mounts, err := w.containerMounts(c.spec, env)
	if err != nil {
		unlock()
		retry("CreateContainerError", err)
		return
	}
	prog, argv := command(c.spec, bin, env)
	restarts := c.restarts
	if c.run != nil {
		restarts++
	}
	id := fmt.Sprintf("podrunner://%s-%s-%d", w.pod.UID, name, restarts)
	logPath := filepath.Join(w.dir, "logs", fmt.Sprintf("%s-%d.log", name, restarts))
	run, err := w.startRun(c, id, prog, argv, env, mounts, logPath, func(in *instance) {
		w.do(ctx, func() { w.exited(c, in) })
	})
	unlock() // the container has mounted, or failed
	if run == nil {
		retry("RunContainerError", err)
		return
	}
	var startErr errStart
	prev := c.run
	c.restarts = restarts
	if prev != nil {
		c.last = prev.term
	}
	c.run, c.endSeen, c.waiting = run, false, nil
	c.started = c.spec.StartupProbe == nil
	c.ready = c.started && c.spec.ReadinessProbe == nil
	w.r.logs.add(w.pod.Namespace, w.pod.Name, w.pod.UID, name, run.log)
	w.r.usage.started(w.pod.UID, name, run)
	if errors.As(err, &startErr) {
		w.r.event(w.pod, corev1.EventTypeWarning, "Failed", "Error: "+startErr.msg)
		return
	}
	w.r.event(w.pod, corev1.EventTypeNormal, "Created", "Created container: "+name)
	w.r.event(w.pod, corev1.EventTypeNormal, "Started", "Started container "+name)
	w.startProbes(ctx, c, run)
}

// exited takes the end of run in of c: it decides the restart, after the
// back-off a kubelet would wait: none the first time, then --restart-
// backoff doubling up to --max-restart-backoff, back to none after a run
// of twice that.
func (w *podWorker) exited(c *container, in *instance) {
	if c.run != in {
		return
	}
	c.endSeen = true
	in.probes()
	c.ready = false
	if !w.restarts(c) {
		return
	}
	if in.term.FinishedAt.Sub(in.term.StartedAt.Time) > 2*w.r.cfg.maxBackoff {
		c.backoff = 0
	}
	delay := c.backoff
	c.notBefore = time.Now().Add(delay)
	c.backoff = min(max(2*c.backoff, w.r.cfg.backoff), w.r.cfg.maxBackoff)
	if delay > 0 {
		c.waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", delay, c.spec.Name, w.pod.Name, w.pod.Namespace, w.pod.UID)}
		w.r.event(w.pod, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container "+c.spec.Name+" in pod "+w.pod.Name+"_"+w.pod.Namespace+"("+string(w.pod.UID)+")")
	}
}
