package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podWorker runs one pod bound to the runner's nodes, from its first
// sight to the removal of its object, as a kubelet's pod worker does. Its
// goroutine owns every field below mu; the informer hands it the pod's
// latest object through latest.
type podWorker struct {
	r   *runner
	dir string // the pod's files: volumes and logs

	mu     sync.Mutex
	latest *corev1.Pod // the pod as the informer saw it last
	gone   bool        // the pod's object is deleted
	notify chan struct{}
	events chan func()   // run in the worker's goroutine
	quit   chan struct{} // closed when the worker ends

	pod       *corev1.Pod // latest, as of the last sync
	sb        *sandbox
	volumes   map[string]volume
	init      []*container
	ctrs      []*container
	startTime metav1.Time
	started   bool              // the pod has been accepted: startTime is set
	terminal  bool              // phase Succeeded or Failed was reported; nothing restarts
	deleted   bool              // the runner deleted the object
	retryAt   time.Time         // when the wake timer fires; zero when it is idle
	setupAt   time.Time         // when setup may try again
	reported  *corev1.PodStatus // as last written to the API
	wake      *time.Timer
	setupErr  string // why the sandbox or volumes are not ready
}

func newPodWorker(r *runner, pod *corev1.Pod) *podWorker {
	w := &podWorker{
		r:      r,
		dir:    filepath.Join(r.cfg.dir, "pods", fmt.Sprintf("%s_%s_%s", pod.Namespace, pod.Name, pod.UID)),
		notify: make(chan struct{}, 1),
		events: make(chan func(), 64),
		quit:   make(chan struct{}),
		wake:   time.NewTimer(time.Hour),
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		w.init = append(w.init, &container{spec: c, init: true,
			sidecar: c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways})
	}
	for i := range pod.Spec.Containers {
		w.ctrs = append(w.ctrs, &container{spec: &pod.Spec.Containers[i]})
	}
	return w
}

// update hands the worker the pod's latest object, or tells it the
// object is gone.
func (w *podWorker) update(pod *corev1.Pod, gone bool) {
	w.mu.Lock()
	if pod != nil {
		w.latest = pod
	}
	w.gone = w.gone || gone
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// do runs f in the worker's goroutine, unless the worker has ended.
func (w *podWorker) do(ctx context.Context, f func()) {
	select {
	case w.events <- f:
	case <-w.quit:
	case <-ctx.Done():
	}
}

// wakeAt makes the worker sync again at t at the latest.
func (w *podWorker) wakeAt(t time.Time) {
	if w.retryAt.IsZero() || t.Before(w.retryAt) {
		w.retryAt = t
		w.wake.Reset(max(time.Until(t), 0))
	}
}

// run is the worker's goroutine. It ends when the pod's object is gone,
// or when ctx ends, having stopped the pod's containers and removed its
// sandbox either way.
func (w *podWorker) run(ctx context.Context) {
	defer close(w.quit)
	defer w.wake.Stop()
	for {
		w.mu.Lock()
		pod, gone := w.latest, w.gone
		w.mu.Unlock()
		w.pod = pod
		if gone {
			w.stopPod(ctx, 2*time.Second)
			w.remove()
			return
		}
		w.sync(ctx)
		select {
		case <-ctx.Done():
			w.stopPod(ctx, 5*time.Second)
			return
		case <-w.notify:
		case f := <-w.events:
			f()
		case <-w.wake.C:
			w.retryAt = time.Time{}
		}
	}
}

// sync makes the pod's processes what its object asks for and reports
// its status.
func (w *podWorker) sync(ctx context.Context) {
	pod := w.pod
	if !w.started {
		w.started = true
		w.startTime = metav1.Now()
	}
	if pod.DeletionTimestamp != nil {
		if !w.deleted {
			w.terminate(ctx)
		}
		return
	}
	if w.terminal {
		w.report(ctx)
		return
	}
	w.setup(ctx)
	if w.sb != nil && w.volumes != nil {
		w.startContainers(ctx)
	}
	if w.phase() == corev1.PodSucceeded || w.phase() == corev1.PodFailed {
		// A finished pod keeps its status and logs but not its processes
		// or its network, as a kubelet tears down a finished pod's sandbox.
		w.terminal = true
		w.stopPod(ctx, 0)
	}
	w.report(ctx)
}

// setup makes the pod's sandbox and volumes, retrying every 2 s while
// either fails (a ConfigMap that does not exist yet, say).
func (w *podWorker) setup(ctx context.Context) {
	if w.sb != nil && w.volumes != nil {
		return
	}
	if w.setupErr != "" && time.Now().Before(w.setupAt) {
		w.wakeAt(w.setupAt)
		return
	}
	fail := func(reason string, err error) {
		if msg := err.Error(); msg != w.setupErr {
			w.r.event(w.pod, corev1.EventTypeWarning, reason, msg)
			w.setupErr = msg
		}
		w.setupAt = time.Now().Add(2 * time.Second)
		w.wakeAt(w.setupAt)
	}
	if w.sb == nil {
		sb, err := w.r.newSandbox(ctx, w.pod, w.hostname(), w.fqdn())
		if err != nil {
			fail("FailedCreatePodSandBox", err)
			return
		}
		w.sb = sb
	}
	if err := os.MkdirAll(filepath.Join(w.dir, "logs"), 0o755); err != nil {
		fail("FailedMount", err)
		return
	}
	vols, err := w.prepareVolumes(ctx)
	if err != nil {
		fail("FailedMount", err)
		return
	}
	w.volumes, w.setupErr = vols, ""
}

// terminate stops a pod being deleted: every container gets SIGTERM, the
// pod's grace period, then SIGKILL; then its sandbox goes, its final
// status is reported and its object deleted with grace 0, which a
// kubelet's deletion is.
func (w *podWorker) terminate(ctx context.Context) {
	grace := 30 * time.Second
	if g := w.pod.DeletionGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	} else if g := w.pod.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	if w.anyRunning() {
		w.r.event(w.pod, corev1.EventTypeNormal, "Killing", "Stopping the pod's containers")
	}
	w.stopPod(ctx, grace)
	w.terminal = true
	w.report(ctx)
	zero := int64(0)
	err := w.r.cs.CoreV1().Pods(w.pod.Namespace).Delete(ctx, w.pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero,
		Preconditions:      &metav1.Preconditions{UID: &w.pod.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		w.r.log.Warn("deleting a pod", "pod", w.pod.Namespace+"/"+w.pod.Name, "err", err)
		w.wakeAt(time.Now().Add(time.Second))
		return
	}
	w.deleted = true
}

// stopPod stops every run of the pod, each given grace after SIGTERM,
// then removes its sandbox.
func (w *podWorker) stopPod(ctx context.Context, grace time.Duration) {
	var wg sync.WaitGroup
	for _, c := range append(append([]*container{}, w.init...), w.ctrs...) {
		if c.run == nil {
			continue
		}
		c.run.probes()
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run.stop(grace)
		}()
	}
	wg.Wait()
	// The runs' ends are known now: note them before the pod's last
	// status is computed.
	for _, c := range append(append([]*container{}, w.init...), w.ctrs...) {
		if c.run != nil && !c.run.running() {
			c.endSeen, c.ready, c.waiting = true, false, nil
		}
	}
	if w.sb != nil && !w.sb.removed {
		w.r.removeSandbox(w.sb)
		w.sb.removed = true
		// The pod's mounts went with its processes.
		if err := w.r.mounts.prune(); err != nil {
			w.r.log.Warn("removing mount points", "err", err)
		}
	}
}

// remove deletes the pod's files once its object is gone: its logs go
// with it.
func (w *podWorker) remove() {
	w.r.logs.drop(w.pod.Namespace, w.pod.Name, w.pod.UID)
	w.r.usage.drop(w.pod.UID)
	if err := os.RemoveAll(w.dir); err != nil {
		w.r.log.Warn("removing a pod's files", "dir", w.dir, "err", err)
	}
}

func (w *podWorker) anyRunning() bool {
	for _, c := range append(append([]*container{}, w.init...), w.ctrs...) {
		if c.run != nil && c.run.running() {
			return true
		}
	}
	return false
}

// report writes the pod's status to the API when it differs from what it
// last wrote, on a conflict with the object as it is now.
func (w *podWorker) report(ctx context.Context) {
	for attempt := 0; attempt < 5; attempt++ {
		pod := w.pod
		if attempt > 0 {
			fresh, err := w.r.cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
			if err != nil || fresh.UID != pod.UID {
				return
			}
			pod = fresh
		}
		st := w.status(pod)
		if w.reported != nil && equality.Semantic.DeepEqual(st, w.reported) {
			return
		}
		next := pod.DeepCopy()
		next.Status = *st
		_, err := w.r.cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{})
		switch {
		case err == nil:
			w.reported = st
			return
		case apierrors.IsConflict(err):
			continue
		case apierrors.IsNotFound(err), errors.Is(err, context.Canceled):
			return
		}
		w.r.log.Warn("reporting a pod's status", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		w.wakeAt(time.Now().Add(time.Second))
		return
	}
	w.wakeAt(time.Now().Add(time.Second))
}
