package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// TestPodMetrics holds what PodMetrics reads: the metrics API's usage of
// the pods the selector matches, with their limits and requests and their
// node's allocatable CPU, and ErrNoMetricsAPI from a cluster without one.
func TestPodMetrics(t *testing.T) {
	api, c := newFakeAPI(t)
	ctx := context.Background()
	if _, err := c.PodMetrics(ctx, "bench", "app=web"); !errors.Is(err, ErrNoMetricsAPI) {
		t.Fatalf("PodMetrics without a metrics API: %v, want ErrNoMetricsAPI", err)
	}

	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	q := apiresource.MustParse
	api.set("/apis/metrics.k8s.io/v1beta1/namespaces/bench/pods", &metricsv1beta1.PodMetricsList{Items: []metricsv1beta1.PodMetrics{{
		ObjectMeta: metav1.ObjectMeta{Name: "web-7d4-x2", Namespace: "bench"},
		Timestamp:  metav1.NewTime(at), Window: metav1.Duration{Duration: 15 * time.Second},
		Containers: []metricsv1beta1.ContainerMetrics{
			{Name: "web", Usage: corev1.ResourceList{corev1.ResourceCPU: q("250m"), corev1.ResourceMemory: q("64Mi")}},
			{Name: "proxy", Usage: corev1.ResourceList{corev1.ResourceCPU: q("50m"), corev1.ResourceMemory: q("16Mi")}},
		},
	}}})
	api.set("/api/v1/namespaces/bench/pods", &corev1.PodList{Items: []corev1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Name: "web-7d4-x2", Namespace: "bench", Labels: map[string]string{"app.kubernetes.io/name": "web"}},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{
			{Name: "web", Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: q("1"), corev1.ResourceMemory: q("256Mi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: q("500m")}}},
			{Name: "proxy", Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("64Mi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: q("100m")}}},
		}},
	}}})
	api.set("/api/v1/nodes/n1", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: q("4")}}})

	got, err := c.PodMetrics(ctx, "bench", "app=web")
	if err != nil {
		t.Fatal(err)
	}
	want := []PodUsage{{Pod: "web-7d4-x2", Node: "n1", Workload: "web", Time: at, Window: 15 * time.Second,
		CPU: 0.3, Memory: 80 << 20, CPULimit: 1.5, CPURequest: 0.6, MemoryLimit: 320 << 20, NodeCPU: 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PodMetrics (-want +got):\n%s", diff)
	}
	for _, r := range []string{
		"GET /apis/metrics.k8s.io/v1beta1/namespaces/bench/pods?labelSelector=app%3Dweb",
		"GET /api/v1/namespaces/bench/pods?labelSelector=app%3Dweb",
		"GET /api/v1/nodes/n1",
	} {
		if !hasRequest(api.requests(), r) {
			t.Errorf("no request %s in %q", r, api.requests())
		}
	}
}
