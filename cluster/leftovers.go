package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A Leftover is an object latlab made that is still in the cluster.
type Leftover struct {
	Ref
	Experiment string // its experiment label
	Variant    string // its variant label, "" for a load Job
	Role       string // its role label
	Created    time.Time
}

// Leftovers lists every object in the cluster that latlab made for
// experiment (for any experiment when it is ""), whatever its kind, in
// every namespace: what an experiment that was killed, or run with
// --keep, left behind. Pods and ReplicaSets that a listed workload owns
// are left out; they go with it.
func (c *Cluster) Leftovers(ctx context.Context, experiment string) ([]Leftover, error) {
	resources, err := c.listable(ctx)
	if err != nil {
		return nil, err
	}
	sel := metav1.ListOptions{LabelSelector: Selector(experiment)}
	var out []Leftover
	var errs []error
	for _, r := range resources {
		list, err := c.Dynamic.Resource(r.gvr).List(ctx, sel)
		if err != nil {
			if !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) && !apierrors.IsForbidden(err) {
				errs = append(errs, fmt.Errorf("listing %s: %w", r.gvr.Resource, err))
			}
			continue
		}
		for _, o := range list.Items {
			if len(o.GetOwnerReferences()) > 0 {
				continue
			}
			l := o.GetLabels()
			out = append(out, Leftover{
				Ref:        Ref{Resource: r.gvr, Kind: r.kind, Namespace: o.GetNamespace(), Name: o.GetName()},
				Experiment: l[LabelExperiment], Variant: l[LabelVariant], Role: l[LabelRole],
				Created: o.GetCreationTimestamp().Time,
			})
		}
	}
	slices.SortFunc(out, func(a, b Leftover) int {
		return cmp.Or(cmp.Compare(a.Experiment, b.Experiment), cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(applyOrder(a.Kind), applyOrder(b.Kind)), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return out, errors.Join(errs...)
}

// Clean deletes what Leftovers lists for experiment and waits until it is
// gone, and returns what it deleted.
func (c *Cluster) Clean(ctx context.Context, experiment string) ([]Leftover, error) {
	left, err := c.Leftovers(ctx, experiment)
	if err != nil && len(left) == 0 {
		return nil, err
	}
	errs := []error{err}
	// One Set per namespace, so that a namespace latlab made goes last.
	byNS := map[string]*Set{}
	for _, l := range left {
		if l.Kind == "Namespace" && l.Resource.Group == "" {
			s := setOf(byNS, l.Name)
			s.CreatedNamespace = true
			continue
		}
		s := setOf(byNS, l.Namespace)
		s.Refs = append(s.Refs, l.Ref)
	}
	for _, s := range byNS {
		s.Labels = map[string]string{LabelManagedBy: ManagedBy}
		if experiment != "" {
			s.Labels[LabelExperiment] = LabelValue(experiment)
		}
		if s.Namespace == "" {
			s.Labels = nil // cluster-scoped objects: no pods to wait for
		}
		errs = append(errs, c.Delete(ctx, s))
	}
	return left, errors.Join(errs...)
}

// setOf returns the Set of namespace in m, adding it if needed.
func setOf(m map[string]*Set, namespace string) *Set {
	s, ok := m[namespace]
	if !ok {
		s = &Set{Namespace: namespace}
		m[namespace] = s
	}
	return s
}

// resource is a kind the server can list.
type resource struct {
	gvr  schema.GroupVersionResource
	kind string
}

// listable returns the server's preferred version of every resource that
// can be listed and deleted, but events and v1 Endpoints: the endpoints
// controller copies a Service's labels to its Endpoints, which go with
// the Service, and listing them draws a deprecation warning.
func (c *Cluster) listable(ctx context.Context) ([]resource, error) {
	served, err := c.preferredResources(ctx)
	if err != nil && len(served) == 0 {
		return nil, fmt.Errorf("asking the API server what it serves: %w", err)
	}
	var out []resource
	for _, r := range served {
		if r.Kind == "Event" || r.Kind == "Endpoints" && r.gv.Group == "" ||
			!slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
			continue
		}
		out = append(out, resource{gvr: r.gv.WithResource(r.Name), kind: r.Kind})
	}
	return out, nil
}
