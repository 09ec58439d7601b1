package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
)

// defaultPath is the PATH of a container whose env sets none, a common
// image's.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// envList is an environment in the order its variables were first set.
type envList struct {
	names []string
	vals  map[string]string
}

func (e *envList) set(name, value string) {
	if e.vals == nil {
		e.vals = map[string]string{}
	}
	if _, ok := e.vals[name]; !ok {
		e.names = append(e.names, name)
	}
	e.vals[name] = value
}

func (e *envList) get(name string) (string, bool) {
	v, ok := e.vals[name]
	return v, ok
}

// list returns the environment as NAME=VALUE strings.
func (e *envList) list() []string {
	out := make([]string, 0, len(e.names))
	for _, n := range e.names {
		out = append(out, n+"="+e.vals[n])
	}
	return out
}

// containerEnv returns c's environment as a kubelet and a runtime make it:
// the Services' variables first (the kubernetes Service's always, the
// namespace's others unless enableServiceLinks is false), then envFrom,
// then env, whose values may refer to anything set before them as $(VAR);
// then HOSTNAME, PATH and HOME where they are not set.
func (w *podWorker) containerEnv(ctx context.Context, c *corev1.Container) (*envList, error) {
	pod := w.pod
	env := &envList{}
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	for _, s := range w.r.servicesForEnv(pod.Namespace, links) {
		serviceEnv(env, s)
	}
	for _, from := range c.EnvFrom {
		var data map[string]string
		switch {
		case from.ConfigMapRef != nil:
			cm, err := w.r.configMap(ctx, pod.Namespace, from.ConfigMapRef.Name, from.ConfigMapRef.Optional)
			if err != nil {
				return nil, err
			}
			data = cm
		case from.SecretRef != nil:
			sec, err := w.r.secret(ctx, pod.Namespace, from.SecretRef.Name, from.SecretRef.Optional)
			if err != nil {
				return nil, err
			}
			data = map[string]string{}
			for k, v := range sec {
				data[k] = string(v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(data)) {
			env.set(from.Prefix+k, data[k])
		}
	}
	for _, e := range c.Env {
		v, err := w.envValue(ctx, c, e, env)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		env.set(e.Name, v)
	}
	if _, ok := env.get("HOSTNAME"); !ok {
		env.set("HOSTNAME", w.hostname())
	}
	if _, ok := env.get("PATH"); !ok {
		env.set("PATH", defaultPath)
	}
	if _, ok := env.get("HOME"); !ok {
		env.set("HOME", "/root")
	}
	return env, nil
}

// envValue returns the value of e, which may use what env holds so far.
func (w *podWorker) envValue(ctx context.Context, c *corev1.Container, e corev1.EnvVar, env *envList) (string, error) {
	pod := w.pod
	if e.ValueFrom == nil {
		return expand(e.Value, env.get), nil
	}
	from := e.ValueFrom
	switch {
	case from.FieldRef != nil:
		return w.fieldValue(from.FieldRef.FieldPath)
	case from.ResourceFieldRef != nil:
		return w.resourceValue(c, from.ResourceFieldRef)
	case from.ConfigMapKeyRef != nil:
		ref := from.ConfigMapKeyRef
		data, err := w.r.configMap(ctx, pod.Namespace, ref.Name, ref.Optional)
		if err != nil {
			return "", err
		}
		v, ok := data[ref.Key]
		if !ok && (ref.Optional == nil || !*ref.Optional) {
			return "", fmt.Errorf("configmap %s has no key %s", ref.Name, ref.Key)
		}
		return v, nil
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		data, err := w.r.secret(ctx, pod.Namespace, ref.Name, ref.Optional)
		if err != nil {
			return "", err
		}
		v, ok := data[ref.Key]
		if !ok && (ref.Optional == nil || !*ref.Optional) {
			return "", fmt.Errorf("secret %s has no key %s", ref.Name, ref.Key)
		}
		return string(v), nil
	}
	return "", fmt.Errorf("unsupported valueFrom")
}

// fieldValue returns the value of a downward API field path.
func (w *podWorker) fieldValue(path string) (string, error) {
	pod := w.pod
	if k, ok := strings.CutPrefix(path, "metadata.labels['"); ok {
		return pod.Labels[strings.TrimSuffix(k, "']")], nil
	}
	if k, ok := strings.CutPrefix(path, "metadata.annotations['"); ok {
		return pod.Annotations[strings.TrimSuffix(k, "']")], nil
	}
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.hostIPs":
		return hostIP, nil
	case "status.podIP", "status.podIPs":
		if w.sb == nil {
			return "", nil
		}
		return w.sb.ip.String(), nil
	}
	return "", fmt.Errorf("unsupported fieldPath %s", path)
}

// formatMap formats labels or annotations as the downward API does: one
// key="value" a line, sorted.
func formatMap(m map[string]string) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		lines = append(lines, k+"="+strconv.Quote(m[k]))
	}
	return strings.Join(lines, "\n")
}

// resourceValue returns a container's request or limit in units of the
// reference's divisor, rounded up as the kubelet does; a limit not set is
// the node's allocatable.
func (w *podWorker) resourceValue(c *corev1.Container, ref *corev1.ResourceFieldSelector) (string, error) {
	if ref.ContainerName != "" {
		found := false
		for _, other := range append(slices.Clone(w.pod.Spec.InitContainers), w.pod.Spec.Containers...) {
			if other.Name == ref.ContainerName {
				c, found = &other, true
				break
			}
		}
		if !found {
			return "", fmt.Errorf("no container %s", ref.ContainerName)
		}
	}
	if c == nil {
		return "", fmt.Errorf("resource %s: no containerName", ref.Resource)
	}
	kind, name, ok := strings.Cut(ref.Resource, ".")
	if !ok {
		return "", fmt.Errorf("unsupported resource %s", ref.Resource)
	}
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		switch corev1.ResourceName(name) {
		case corev1.ResourceCPU:
			q = w.r.cfg.cpu
		case corev1.ResourceMemory:
			q = w.r.cfg.memory
		default:
			q = resource.Quantity{}
		}
		if kind == "requests" {
			q = resource.Quantity{}
		}
	}
	divisor := ref.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	v := math.Ceil(float64(q.MilliValue()) / float64(divisor.MilliValue()))
	if name == "cpu" && kind == "limits" && v < 1 {
		v = 1
	}
	return strconv.FormatInt(int64(v), 10), nil
}

// serviceEnv adds a Service's variables, Docker-link style as the kubelet
// writes them: NAME_SERVICE_HOST, NAME_SERVICE_PORT, NAME_PORT and the
// per-port ones.
func serviceEnv(env *envList, s *corev1.Service) {
	if len(s.Spec.Ports) == 0 {
		return
	}
	name := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
	ip := s.Spec.ClusterIP
	first := s.Spec.Ports[0]
	env.set(name+"_SERVICE_HOST", ip)
	env.set(name+"_SERVICE_PORT", strconv.Itoa(int(first.Port)))
	for _, p := range s.Spec.Ports {
		if p.Name != "" {
			env.set(name+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_")), strconv.Itoa(int(p.Port)))
		}
	}
	proto := strings.ToLower(string(first.Protocol))
	env.set(name+"_PORT", fmt.Sprintf("%s://%s:%d", proto, ip, first.Port))
	for _, p := range s.Spec.Ports {
		pr := strings.ToLower(string(p.Protocol))
		prefix := fmt.Sprintf("%s_PORT_%d_%s", name, p.Port, strings.ToUpper(pr))
		env.set(prefix, fmt.Sprintf("%s://%s:%d", pr, ip, p.Port))
		env.set(prefix+"_PROTO", pr)
		env.set(prefix+"_PORT", strconv.Itoa(int(p.Port)))
		env.set(prefix+"_ADDR", ip)
	}
}

// hostname is the pod's hostname: spec.hostname, else its name, cut to
// 63 bytes as the kubelet cuts it.
func (w *podWorker) hostname() string {
	h := w.pod.Spec.Hostname
	if h == "" {
		h = w.pod.Name
	}
	if len(h) > 63 {
		h = strings.TrimRight(h[:63], "-.")
	}
	return h
}

// fqdn is the pod's fully qualified name when it has a subdomain.
func (w *podWorker) fqdn() string {
	if w.pod.Spec.Subdomain == "" {
		return ""
	}
	return fmt.Sprintf("%s.%s.%s.svc.%s", w.hostname(), w.pod.Spec.Subdomain, w.pod.Namespace, clusterDomain)
}

// servicesForEnv returns the Services whose variables a pod of namespace
// ns gets: the kubernetes Service always, the namespace's others with
// links, as the kubelet picks them.
func (r *runner) servicesForEnv(ns string, links bool) []*corev1.Service {
	all, err := r.services.List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*corev1.Service
	for _, s := range all {
		if s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone {
			continue
		}
		if (s.Namespace == "default" && s.Name == "kubernetes") || (links && s.Namespace == ns) {
			out = append(out, s)
		}
	}
	return out
}
