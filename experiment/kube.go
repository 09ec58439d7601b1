package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/spec"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/graph"
)

// Bounds of what a Runner does on a cluster.
const (
	// kubeCleanup bounds the deletion of a variant, or of a namespace
	// latlab created, also after the run was interrupted.
	kubeCleanup = 3 * time.Minute
)

// connect connects to the cluster when the spec needs one, and makes the
// namespaces it names that do not exist yet, keeping their names to
// delete them at the end. It checks that the API server answers, so that a
// wrong kubeconfig fails before any trial.
func (r *Runner) connect(ctx context.Context) error {
	if !r.Spec.InCluster() || r.kube != nil {
		return nil
	}
	c, err := cluster.Connect(r.Kubernetes)
	if err != nil {
		return err
	}
	if _, err := c.ServerVersion(ctx); err != nil {
		return fmt.Errorf("kubernetes (%s): %w", c.Where, err)
	}
	r.kube = c
	seen := map[string]bool{}
	var need []string
	for i := range r.Spec.Variants {
		if v := &r.Spec.Variants[i]; v.InCluster() {
			need = append(need, r.variantNamespace(v))
		}
	}
	if r.Spec.LoadPod != nil {
		need = append(need, r.loadNamespace())
	}
	for _, ns := range need {
		if seen[ns] {
			continue
		}
		seen[ns] = true
		created, err := c.EnsureNamespace(ctx, ns, cluster.Labels(r.Spec.Name, ""))
		if err != nil {
			return fmt.Errorf("kubernetes (%s): %w", c.Where, err)
		}
		if created {
			r.kubeCreated = append(r.kubeCreated, ns)
		}
	}
	if r.Spec.LoadPod != nil && r.Spec.Probes.Traces {
		objs, err := cluster.FromObjects(r.tracesObject())
		if err != nil {
			return err
		}
		r.kubeShared, err = c.Apply(ctx, objs, r.loadNamespace(), cluster.Labels(r.Spec.Name, ""))
		if err != nil {
			r.disconnect(ctx)
			return fmt.Errorf("kubernetes (%s): %w", c.Where, err)
		}
	}
	return nil
}

// disconnect deletes the namespaces connect created, unless Keep is set.
func (r *Runner) disconnect(ctx context.Context) {
	if r.kube == nil || r.Keep {
		return
	}
	if r.kubeShared != nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), kubeCleanup)
		if err := r.kube.Delete(ctx, r.kubeShared); err != nil {
			r.logf("kubernetes: %v", err)
		}
		cancel()
		r.kubeShared = nil
	}
	for _, ns := range r.kubeCreated {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), kubeCleanup)
		err := r.kube.Delete(ctx, &cluster.Set{Namespace: ns, CreatedNamespace: true, Labels: cluster.Labels(r.Spec.Name, "")})
		cancel()
		if err != nil {
			r.logf("kubernetes: deleting namespace %s: %v", ns, err)
		}
	}
	r.kubeCreated = nil
}

// kubeNamespace returns the namespace of the spec, or the kubeconfig's.
func (r *Runner) kubeNamespace() string {
	if k := r.Spec.Kubernetes; k != nil && k.Namespace != "" {
		return k.Namespace
	}
	return r.kube.Namespace
}

func (r *Runner) variantNamespace(v *spec.Variant) string {
	if ns := v.Namespace(r.Spec); ns != "" {
		return ns
	}
	return r.kube.Namespace
}

func (r *Runner) loadNamespace() string {
	if ns := r.Spec.LoadPod.Namespace; ns != "" {
		return ns
	}
	return r.kubeNamespace()
}

// setUpKube deploys v to the cluster and waits until it is ready: its
// workloads rolled out and its Services' endpoints ready.
func (r *Runner) setUpKube(ctx context.Context, l *live) error {
	v := l.v
	objs := v.Objects
	ns := r.variantNamespace(v)
	if v.Topology != nil {
		var err error
		if objs, err = r.graphObjects(v); err != nil {
			return fmt.Errorf("variant %s: %w", v.Name, err)
		}
		entry := v.Topology.Entry()
		svc := spec.GraphPrefix(v.Name) + strings.ToLower(entry.Name)
		l.entry = graph.EntryURL(entry, fmt.Sprintf("%s.%s.svc:%d", svc, ns, graph.PodPort))
	}
	set, err := r.kube.Apply(ctx, objs, ns, cluster.Labels(r.Spec.Name, v.Name))
	l.set = set
	if err != nil {
		r.tearDown(l)
		return fmt.Errorf("variant %s: %w", v.Name, err)
	}
	if err := r.kube.WaitReady(ctx, set, v.ReadyTimeout); err != nil {
		r.tearDown(l)
		return fmt.Errorf("variant %s: %w", v.Name, err)
	}
	l.selector = labels.SelectorFromSet(cluster.Labels(r.Spec.Name, v.Name)).String()
	l.namespace = ns
	return nil
}

// graphObjects returns the objects of v's graph on the cluster, with the
// spec's image, named apart from other variants' by their prefix.
func (r *Runner) graphObjects(v *spec.Variant) ([]*unstructured.Unstructured, error) {
	o := graph.PodOptions{Image: r.Spec.Kubernetes.Image, Prefix: spec.GraphPrefix(v.Name)}
	if r.Spec.Probes.Traces {
		o.Args = append(o.Args, "--otlp-endpoint", fmt.Sprintf("http://%s.%s.svc:%d", tracesService(r.Spec.Name), r.loadNamespace(), remote.OTLPHTTPPort))
		o.Env = append(o.Env, corev1.EnvVar{Name: "OTEL_BSP_SCHEDULE_DELAY", Value: "200"})
	}
	if r.Spec.Probes.Pprof != nil {
		o.Args = append(o.Args, "--pprof")
	}
	typed, err := graph.Objects(v.Topology, o)
	if err != nil {
		return nil, err
	}
	return cluster.FromObjects(typed...)
}

// tearDownKube deletes what setUpKube applied, unless Keep is set. It runs
// also after the run was interrupted, within kubeCleanup.
func (r *Runner) tearDownKube(l *live) {
	if l.set == nil || r.Keep {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), kubeCleanup)
	defer cancel()
	if err := r.kube.Delete(ctx, l.set); err != nil {
		r.logf("variant %s: deleting it from the cluster: %v", l.v.Name, err)
	}
	l.set = nil
}
