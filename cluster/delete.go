package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// DeleteTimeout bounds how long Delete waits for what it deleted to be
// gone.
var DeleteTimeout = 2 * time.Minute

// Delete deletes what set applied, last applied first, and the namespace
// if Apply created it, and waits until they and the pods they made are
// gone (DeleteTimeout at most): a next variant then starts on a quiet
// cluster. It deletes all it can and returns every failure.
func (c *Cluster) Delete(ctx context.Context, set *Set) error {
	var errs []error
	refs := slices.Clone(set.Refs)
	slices.Reverse(refs)
	for _, r := range refs {
		if err := c.deleteRef(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	if set.CreatedNamespace {
		err := remove(ctx, c.coreV1, "namespaces", "", set.Namespace, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", set.Namespace, err))
		}
	}
	if err := c.waitGone(ctx, set); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// background deletes an object's dependents (a Deployment's ReplicaSets
// and pods) after it.
var background = metav1.DeletePropagationBackground

// deleteRef deletes r; one already gone is no error.
func (c *Cluster) deleteRef(ctx context.Context, r Ref) error {
	err := c.Dynamic.Resource(r.Resource).Namespace(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", r, err)
	}
	return nil
}

// waitGone waits until set's objects, its namespace if Apply created it
// and the pods bearing its labels are gone.
func (c *Cluster) waitGone(ctx context.Context, set *Set) error {
	deadline := time.Now().Add(DeleteTimeout)
	for {
		left, err := c.remaining(ctx, set)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("still there %v after deleting them: %s", DeleteTimeout, strings.Join(left, ", "))
		}
		t := time.NewTimer(pollEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting for %s to be deleted: %w", strings.Join(left, ", "), ctx.Err())
		case <-t.C:
		}
	}
}

// remaining names what of set is still there.
func (c *Cluster) remaining(ctx context.Context, set *Set) ([]string, error) {
	var left []string
	for _, r := range set.Refs {
		_, err := c.Dynamic.Resource(r.Resource).Namespace(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		switch {
		case err == nil:
			left = append(left, r.String())
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading %s: %w", r, err)
		}
	}
	if len(set.Labels) > 0 {
		pods, err := list[corev1.PodList](ctx, c.coreV1, "pods", set.Namespace, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(set.Labels).String()})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("listing pods in %s: %w", set.Namespace, err)
		}
		if err == nil {
			for _, p := range pods.Items {
				left = append(left, "pod/"+p.Name)
			}
		}
	}
	if set.CreatedNamespace {
		_, err := get[corev1.Namespace](ctx, c.coreV1, "namespaces", "", set.Namespace)
		switch {
		case err == nil:
			left = append(left, "namespace/"+set.Namespace)
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading namespace %s: %w", set.Namespace, err)
		}
	}
	return left, nil
}
