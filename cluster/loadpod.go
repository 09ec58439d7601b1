package cluster

import (
	"context"
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A LoadPod is a load generator to run in the cluster: a Job of one pod
// whose container runs Image with Args and listens on Port, ready once
// ReadyPath answers there.
type LoadPod struct {
	Namespace string
	Name      string // the Job's; its pod's begins with it
	Image     string
	Args      []string
	Port      int
	ReadyPath string
	Labels    map[string]string
	Resources corev1.ResourceRequirements
	// NodeSelector and Tolerations say which nodes may run the pod.
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
	// Lifetime bounds the pod's life (the Job's activeDeadlineSeconds):
	// if latlab dies before deleting it, the cluster ends it.
	Lifetime time.Duration
	// Token, when set, is put in a Secret of the Job's name, owned by the
	// Job (the cluster deletes it with the Job), that the pod alone mounts
	// at TokenPath: the agent's token, which no pod spec, argument or
	// environment shows.
	Token string
	// Shards, above 1, makes the Job an Indexed Job of that many pods,
	// spread over the nodes where it can (a preferred anti-affinity);
	// WaitShards finds them.
	Shards int
}

// TokenPath is where a load pod reads its agent's token.
const TokenPath = "/var/run/latlab/token"

// CompletionIndex is the annotation of an Indexed Job's pod that holds
// its index.
const CompletionIndex = "batch.kubernetes.io/job-completion-index"

// The reasons a load pod failed, as flags name them.
const (
	FailImage         = "image"         // its image cannot be pulled
	FailUnschedulable = "unschedulable" // no node can take it
	FailOOMKilled     = "oomkilled"     // its container ran out of memory
	FailEvicted       = "evicted"       // its node evicted it
	FailExited        = "exited"        // its container exited, or was killed
	FailConfig        = "config"        // its container cannot be created as given
	FailGone          = "gone"          // it or its Job was deleted
)

// A PodFailure is a load pod that failed: one of the Fail reasons, and
// what the cluster said.
type PodFailure struct {
	Pod    string
	Reason string
	Detail string
}

func (e *PodFailure) Error() string {
	return fmt.Sprintf("load pod %s: %s: %s", e.Pod, e.Reason, e.Detail)
}

// The user and group a load pod runs as: distroless's nonroot, whatever
// the image says.
const loadUser = 65532

// tmpLimit bounds a load pod's /tmp: a trial's files, at most a bundle's
// 64 MiB, twice over.
var tmpLimit = apiresource.MustParse("256Mi")

// podSecurity is a load pod's: not root, the runtime's default seccomp
// profile, and its files' group its user's, so that it reads its token.
func podSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot: ptrTo(true), RunAsUser: ptrTo[int64](loadUser), RunAsGroup: ptrTo[int64](loadUser),
		FSGroup:        ptrTo[int64](loadUser),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// containerSecurity is a load pod's container's: no capability, no way to
// gain privileges, a read-only root file system.
func containerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptrTo(false), ReadOnlyRootFilesystem: ptrTo(true), RunAsNonRoot: ptrTo(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// job returns the Job of lp.
func (lp *LoadPod) job() *batchv1.Job {
	backoff, completions := int32(0), int32(1)
	ttl := int32(600)
	grace := int64(10)
	deadline := int64(max(lp.Lifetime, time.Minute) / time.Second)
	labels := maps.Clone(lp.Labels)
	labels[LabelRole] = RoleLoad
	j := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: lp.Name, Namespace: lp.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:            &backoff,
			Completions:             &completions,
			ActiveDeadlineSeconds:   &deadline,
			TTLSecondsAfterFinished: &ttl,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					// The agent talks to no API server: no credentials
					// of the namespace's service account in its pod.
					AutomountServiceAccountToken:  new(bool),
					SecurityContext:               podSecurity(),
					Volumes:                       []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &tmpLimit}}}},
					RestartPolicy:                 corev1.RestartPolicyNever,
					TerminationGracePeriodSeconds: &grace,
					EnableServiceLinks:            new(bool),
					NodeSelector:                  lp.NodeSelector,
					Tolerations:                   lp.Tolerations,
					Containers: []corev1.Container{{
						Name:      "load",
						Image:     lp.Image,
						Args:      lp.Args,
						Ports:     []corev1.ContainerPort{{Name: "agent", ContainerPort: int32(lp.Port), Protocol: corev1.ProtocolTCP}},
						Resources: lp.Resources,
						// The agent writes a trial's files under /tmp, and
						// nothing else anywhere.
						VolumeMounts:    []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
						SecurityContext: containerSecurity(),
						ReadinessProbe: &corev1.Probe{
							ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: lp.ReadyPath, Port: intstr.FromInt32(int32(lp.Port)),
							}},
							PeriodSeconds: 1, FailureThreshold: 3,
						},
					}},
				},
			},
		},
	}
	if lp.Token != "" {
		mode := int32(0o440) // the pod's user and, through FSGroup, its group
		ps := &j.Spec.Template.Spec
		ps.Volumes = append(ps.Volumes, corev1.Volume{Name: "token", VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: lp.Name, DefaultMode: &mode,
				Items: []corev1.KeyToPath{{Key: tokenKey, Path: path.Base(TokenPath)}}},
		}})
		ps.Containers[0].VolumeMounts = append(ps.Containers[0].VolumeMounts,
			corev1.VolumeMount{Name: "token", MountPath: path.Dir(TokenPath), ReadOnly: true})
	}
	if n := int32(lp.Shards); n > 1 {
		indexed := batchv1.IndexedCompletion
		j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism = &indexed, &n, &n
		j.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"job-name": lp.Name}},
				TopologyKey:   corev1.LabelHostname,
			}}},
		}}
	}
	return j
}

// A Running is a load pod started by StartLoad.
type Running struct {
	c   *Cluster
	lp  LoadPod
	Pod string // the pod's name, once WaitRunning has found it
}

// StartLoad creates lp's Job, and with a Token its Secret, owned by the
// Job. Stop deletes the Job, and the cluster the Secret with it.
func (c *Cluster) StartLoad(ctx context.Context, lp LoadPod) (*Running, error) {
	j := lp.job()
	made, err := create(ctx, c.batchV1, "jobs", lp.Namespace, j, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, fmt.Errorf("creating load job %s in %s: %w", lp.Name, lp.Namespace, err)
	}
	r := &Running{c: c, lp: lp}
	if lp.Token == "" {
		return r, nil
	}
	// The pod waits for its Secret to mount it: made after the Job, the
	// Secret can name it as its owner.
	if _, err := create(ctx, c.coreV1, "secrets", lp.Namespace, lp.secret(made.UID), metav1.CreateOptions{FieldManager: FieldManager}); err != nil {
		_ = r.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("creating the token secret of load job %s in %s: %w", lp.Name, lp.Namespace, err)
	}
	return r, nil
}

// tokenKey is the key of the token in a load pod's Secret.
const tokenKey = "token"

// secret returns the Secret of lp's token, owned by its Job of uid.
func (lp *LoadPod) secret(uid types.UID) *corev1.Secret {
	labels := maps.Clone(lp.Labels)
	labels[LabelRole] = RoleLoad
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: lp.Name, Namespace: lp.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: lp.Name, UID: uid}}},
		Type:      corev1.SecretTypeOpaque,
		Immutable: ptrTo(true),
		Data:      map[string][]byte{tokenKey: []byte(lp.Token)},
	}
}

func ptrTo[T any](v T) *T { return &v }

// WaitReady waits until the load pod is ready, fails (a *PodFailure), or
// timeout passes (a *PodFailure too: its reason is the pod's state then).
func (r *Running) WaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		p, err := r.pod(ctx)
		switch {
		case err != nil:
			return err
		case p != nil && podReady(p):
			r.Pod = p.Name
			return nil
		case p != nil:
			if f := Failure(p); f != nil {
				return f
			}
		}
		if !time.Now().Before(deadline) {
			return r.timedOut(p, timeout)
		}
		t := time.NewTimer(min(pollEvery, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// timedOut is the failure of a load pod still not ready after timeout.
func (r *Running) timedOut(p *corev1.Pod, timeout time.Duration) *PodFailure {
	if p == nil {
		return &PodFailure{Pod: r.lp.Name, Reason: FailUnschedulable, Detail: fmt.Sprintf("job %s made no pod in %v", r.lp.Name, timeout)}
	}
	reason := FailExited
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			reason = FailUnschedulable
		}
	}
	for _, s := range p.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil && imageReasons[w.Reason] {
			reason = FailImage
		}
	}
	return &PodFailure{Pod: p.Name, Reason: reason, Detail: fmt.Sprintf("not ready after %v: %s", timeout, PodProblem(p))}
}

// Check returns the load pod's failure if it has failed since it was
// ready, nil while it runs.
func (r *Running) Check(ctx context.Context) error {
	p, err := r.pod(ctx)
	if err != nil {
		return err
	}
	if p == nil {
		return &PodFailure{Pod: r.Pod, Reason: FailGone, Detail: "the pod is gone"}
	}
	if f := Failure(p); f != nil {
		return f
	}
	return nil
}

// pod returns the Job's pod, nil if it has none yet; the newest, should
// there be more.
func (r *Running) pod(ctx context.Context) (*corev1.Pod, error) {
	pods, err := list[corev1.PodList](ctx, r.c.coreV1, "pods", r.lp.Namespace, metav1.ListOptions{LabelSelector: "job-name=" + r.lp.Name})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of load job %s: %w", r.lp.Name, err)
	}
	var newest *corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		if newest == nil || p.CreationTimestamp.After(newest.CreationTimestamp.Time) {
			newest = p
		}
	}
	return newest, nil
}

// Stop deletes the load Job and waits, a minute at most, until its pod is
// gone, so that nothing of a trial is left when the next one starts or
// latlab exits.
func (r *Running) Stop(ctx context.Context) error {
	err := remove(ctx, r.c.batchV1, "jobs", r.lp.Namespace, r.lp.Name, metav1.DeleteOptions{PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting load job %s: %w", r.lp.Name, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		p, err := r.pod(ctx)
		switch {
		case err != nil:
			return err
		case p == nil:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("load job %s: its pod %s is still there a minute after the job was deleted", r.lp.Name, p.Name)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("load job %s: waiting for its pod to go: %w", r.lp.Name, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// imageReasons are the waiting reasons of a container whose image cannot
// be had.
var imageReasons = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true}

// configReasons are the waiting reasons of a container that cannot be
// created as its spec gives it.
var configReasons = map[string]bool{"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true}

// Failure returns why p has failed for good, or nil: evicted, its
// container OOM-killed or exited, its image missing or its spec unusable.
// A pod merely pending (unschedulable, pulling) has not failed yet; its
// waiting is bounded by its caller.
func Failure(p *corev1.Pod) *PodFailure {
	if p.Status.Reason == "Evicted" {
		return &PodFailure{Pod: p.Name, Reason: FailEvicted, Detail: p.Status.Message}
	}
	for _, s := range p.Status.ContainerStatuses {
		if t := s.State.Terminated; t != nil {
			reason := FailExited
			if t.Reason == "OOMKilled" {
				reason = FailOOMKilled
			}
			return &PodFailure{Pod: p.Name, Reason: reason, Detail: "container " + s.Name + " exited " + exitText(t)}
		}
		if w := s.State.Waiting; w != nil {
			switch {
			case w.Reason == "InvalidImageName" || w.Reason == "ErrImageNeverPull" || w.Reason == "ImagePullBackOff":
				return &PodFailure{Pod: p.Name, Reason: FailImage, Detail: strings.TrimSpace(w.Reason + ": " + w.Message)}
			case configReasons[w.Reason]:
				return &PodFailure{Pod: p.Name, Reason: FailConfig, Detail: strings.TrimSpace(w.Reason + ": " + w.Message)}
			}
		}
	}
	if p.Status.Phase == corev1.PodFailed {
		return &PodFailure{Pod: p.Name, Reason: FailExited, Detail: PodProblem(p)}
	}
	if p.DeletionTimestamp != nil {
		return &PodFailure{Pod: p.Name, Reason: FailGone, Detail: "the pod is being deleted"}
	}
	return nil
}

// WaitShards waits until every pod of an Indexed Job of lp.Shards pods
// is ready, and returns them by index; a pod that fails is a
// *PodFailure, as is a pod still not ready after timeout, returned with
// the pods found by then (nil for an index without one).
func (r *Running) WaitShards(ctx context.Context, timeout time.Duration) ([]*corev1.Pod, error) {
	deadline := time.Now().Add(timeout)
	for {
		pods, err := list[corev1.PodList](ctx, r.c.coreV1, "pods", r.lp.Namespace, metav1.ListOptions{LabelSelector: "job-name=" + r.lp.Name})
		if err != nil {
			return nil, fmt.Errorf("listing the pods of load job %s: %w", r.lp.Name, err)
		}
		byIndex := make([]*corev1.Pod, r.lp.Shards)
		ready := 0
		var waiting *corev1.Pod
		for i := range pods.Items {
			p := &pods.Items[i]
			k, err := strconv.Atoi(p.Annotations[CompletionIndex])
			if err != nil || k < 0 || k >= len(byIndex) {
				continue
			}
			byIndex[k] = p
			if f := Failure(p); f != nil {
				return byIndex, f
			}
			if podReady(p) {
				ready++
			} else {
				waiting = p
			}
		}
		if ready == len(byIndex) {
			return byIndex, nil
		}
		if !time.Now().Before(deadline) {
			return byIndex, r.timedOut(waiting, timeout)
		}
		t := time.NewTimer(min(pollEvery, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// Watch reports once, on the channel it returns, why pod fails or goes
// (see Failure), looking every second until ctx ends.
func (r *Running) Watch(ctx context.Context, pod string) <-chan string {
	out := make(chan string, 1)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			p, err := get[corev1.Pod](ctx, r.c.coreV1, "pods", r.lp.Namespace, pod)
			switch {
			case apierrors.IsNotFound(err):
				out <- (&PodFailure{Pod: pod, Reason: FailGone, Detail: "the pod is gone"}).Error()
				return
			case err != nil:
				continue // the API may be slow; the agent's answers bound the wait
			}
			if f := Failure(p); f != nil {
				out <- f.Error()
				return
			}
		}
	}()
	return out
}
