package cluster

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FieldManager is the field manager of latlab's server-side applies.
const FieldManager = "latlab"

// A Ref names one object latlab applied.
type Ref struct {
	Resource  schema.GroupVersionResource
	Kind      string
	Namespace string // "" for a cluster-scoped object
	Name      string
}

// String returns r as kubectl names it: kind/name, and the namespace.
func (r Ref) String() string {
	s := fmt.Sprintf("%s/%s", lowerKind(r.Kind), r.Name)
	if r.Namespace != "" {
		s += " in " + r.Namespace
	}
	return s
}

// A Set is what one Apply applied, in order, to be waited for and
// deleted.
type Set struct {
	Namespace string // the namespace objects without one went to
	Refs      []Ref
	Labels    map[string]string
	// CreatedNamespace is set when Apply created Namespace: Delete
	// deletes it too.
	CreatedNamespace bool
}

// Apply applies objs with server-side apply (field manager latlab, taking
// fields other managers own) in an order that lets them start: namespaces
// and definitions first, then accounts, roles, configuration and Services,
// then workloads. A namespaced object without a namespace goes to
// namespace ("" means "default"), which is created, labelled, if it does
// not exist. Every object, and every pod its workloads make, gets labels.
// The Set holds what was applied also when Apply fails part of the way,
// so that it can be deleted.
func (c *Cluster) Apply(ctx context.Context, objs []*unstructured.Unstructured, namespace string, labels map[string]string) (*Set, error) {
	if namespace == "" {
		namespace = corev1.NamespaceDefault
	}
	set := &Set{Namespace: namespace, Labels: maps.Clone(labels)}
	created, err := c.EnsureNamespace(ctx, namespace, labels)
	if err != nil {
		return set, err
	}
	set.CreatedNamespace = created
	objs = slices.Clone(objs)
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		return cmp.Compare(applyOrder(a.GetKind()), applyOrder(b.GetKind()))
	})
	for _, o := range objs {
		ref, err := c.applyOne(ctx, o, namespace, labels)
		if err != nil {
			return set, err
		}
		set.Refs = append(set.Refs, ref)
	}
	return set, nil
}

// applyOne applies o, labelled.
func (c *Cluster) applyOne(ctx context.Context, o *unstructured.Unstructured, namespace string, labels map[string]string) (Ref, error) {
	o = o.DeepCopy()
	gvk := o.GroupVersionKind()
	gvr, namespaced, err := c.mapping(ctx, gvk)
	if err != nil {
		return Ref{}, fmt.Errorf("applying %s/%s: %w", lowerKind(gvk.Kind), o.GetName(), err)
	}
	ref := Ref{Resource: gvr, Kind: gvk.Kind, Name: o.GetName()}
	if namespaced {
		if o.GetNamespace() == "" {
			o.SetNamespace(namespace)
		}
		ref.Namespace = o.GetNamespace()
	} else {
		o.SetNamespace("")
	}
	if err := addLabels(o, labels); err != nil {
		return ref, fmt.Errorf("applying %s: %w", ref, err)
	}
	_, err = c.Dynamic.Resource(gvr).Namespace(ref.Namespace).Apply(ctx, ref.Name, o,
		metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return ref, fmt.Errorf("applying %s: %w", ref, err)
	}
	return ref, nil
}

// EnsureNamespace creates namespace, labelled, unless it exists, and says
// whether it did. A user who may not read namespaces, only use one, is
// taken at their word that it exists.
func (c *Cluster) EnsureNamespace(ctx context.Context, namespace string, labels map[string]string) (bool, error) {
	_, err := get[corev1.Namespace](ctx, c.coreV1, "namespaces", "", namespace)
	if err == nil || apierrors.IsForbidden(err) {
		// Forbidden: RBAC grants this user a namespace (a Role in it),
		// not namespaces; it is there, or the first object says so.
		return false, nil
	}
	if !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("namespace %s: %w", namespace, err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: maps.Clone(labels)}}
	_, err = create(ctx, c.coreV1, "namespaces", "", ns, metav1.CreateOptions{FieldManager: FieldManager})
	switch {
	case apierrors.IsAlreadyExists(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	return true, nil
}

// podTemplates are where each workload kind keeps the labels of its pods.
var podTemplates = map[string][]string{
	"Deployment":  {"spec", "template", "metadata", "labels"},
	"StatefulSet": {"spec", "template", "metadata", "labels"},
	"DaemonSet":   {"spec", "template", "metadata", "labels"},
	"ReplicaSet":  {"spec", "template", "metadata", "labels"},
	"Job":         {"spec", "template", "metadata", "labels"},
	"CronJob":     {"spec", "jobTemplate", "spec", "template", "metadata", "labels"},
}

// addLabels puts labels on o and on the pods it makes.
func addLabels(o *unstructured.Unstructured, labels map[string]string) error {
	l := o.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	maps.Copy(l, labels)
	o.SetLabels(l)
	path, ok := podTemplates[o.GetKind()]
	if !ok {
		return nil
	}
	pl, _, err := unstructured.NestedStringMap(o.Object, path...)
	if err != nil {
		return fmt.Errorf("%s: %w", pathString(path), err)
	}
	if pl == nil {
		pl = map[string]string{}
	}
	maps.Copy(pl, labels)
	return unstructured.SetNestedStringMap(o.Object, pl, path...)
}

// applyOrder ranks kinds so that what others need is applied first.
func applyOrder(kind string) int {
	switch kind {
	case "Namespace":
		return 0
	case "CustomResourceDefinition", "PriorityClass", "StorageClass":
		return 1
	case "ServiceAccount", "ClusterRole", "Role":
		return 2
	case "ClusterRoleBinding", "RoleBinding":
		return 3
	case "ConfigMap", "Secret", "PersistentVolumeClaim":
		return 4
	case "Service":
		return 5
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod":
		return 7
	}
	return 6
}
