package cluster

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The annotations by which a pod asks to be scraped, as Prometheus's
// usual Kubernetes configuration reads them.
const (
	annotationScrape = "prometheus.io/scrape"
	annotationPort   = "prometheus.io/port"
	annotationPath   = "prometheus.io/path"
	annotationScheme = "prometheus.io/scheme"
)

// A ScrapeTarget is a pod's metrics endpoint, reached through the API
// server's pod proxy.
type ScrapeTarget struct {
	Pod string
	URL string // PodURL of the port, with the path
}

// ScrapeTargets returns the metrics endpoints of the running pods in
// namespace that selector matches and that ask to be scraped with the
// annotation prometheus.io/scrape: "true": each at prometheus.io/port
// (else the first port its containers name), prometheus.io/path (else
// /metrics) and prometheus.io/scheme (else http), through the pod proxy.
func (c *Cluster) ScrapeTargets(ctx context.Context, namespace, selector string) ([]ScrapeTarget, error) {
	pods, err := list[corev1.PodList](ctx, c.coreV1, "pods", namespace, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("listing the pods to scrape in %s: %w", namespace, err)
	}
	var out []ScrapeTarget
	for i := range pods.Items {
		p := &pods.Items[i]
		a := p.Annotations
		if a[annotationScrape] != "true" || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue
		}
		port := firstPort(p)
		if s := a[annotationPort]; s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 || n > 65535 {
				return nil, fmt.Errorf("pod %s/%s: annotation %s: %q is not a port", namespace, p.Name, annotationPort, s)
			}
			port = n
		}
		if port == 0 {
			return nil, fmt.Errorf("pod %s/%s asks to be scraped but gives no port: annotate it %s", namespace, p.Name, annotationPort)
		}
		u, err := c.PodURL(namespace, p.Name, port, cmp.Or(a[annotationScheme], "http"))
		if err != nil {
			return nil, err
		}
		path := cmp.Or(a[annotationPath], "/metrics")
		out = append(out, ScrapeTarget{Pod: p.Name, URL: u.String() + "/" + strings.TrimPrefix(path, "/")})
	}
	return out, nil
}

// firstPort returns the first port p's containers declare, 0 if none.
func firstPort(p *corev1.Pod) int {
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			return int(cp.ContainerPort)
		}
	}
	return 0
}
