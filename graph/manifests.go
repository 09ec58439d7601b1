package graph

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// PodPort is the port a graph's pods and Services on a cluster serve on.
const PodPort = podPort

// Where the manifests put things.
const (
	configMapName = "latlab-topology"
	configKey     = "topology.yaml" // the topology file in the ConfigMap and the mount
	mountPath     = "/etc/latlab"
	podPort       = 8080
	portName      = "http"
	maxConfigMap  = 1 << 20 // bytes a ConfigMap may hold
	checksumKey   = "latlab/topology-sha256"
)

// Manifests returns Kubernetes manifests that run t with the container
// image: Objects as YAML documents separated by "---" lines.
func Manifests(t *Topology, image string) ([]byte, error) {
	objs, err := Objects(t, PodOptions{Image: image})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for i, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("writing manifests: %w", err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(data)
	}
	return b.Bytes(), nil
}

// PodOptions are what the pods of Objects run besides the topology.
type PodOptions struct {
	Image string          // the container image; it must have latlab as its entry point
	Args  []string        // more arguments of each node's latlab serve, such as --otlp-endpoint URL
	Env   []corev1.EnvVar // more environment of each node
	// Prefix begins the name of every object, so that several graphs
	// share a namespace: a service's objects are PREFIX+NAME, and each
	// node reaches the others by those names (serve's --peer).
	Prefix string
}

// Objects returns the Kubernetes objects that run t with o.Image: a
// ConfigMap latlab-topology holding the topology file and every job file,
// and for each service a Deployment of one pod running "latlab serve" on
// port 8080 and a Service in front of it. Objects are named after the
// services in lowercase, so a node reaches another at http://NAME:8080.
//
// Objects reads t.File and the job files again, so they must still be
// there; job files must be given by paths relative to the topology's
// folder and inside it, since the pods see the ConfigMap's files only.
// Pod templates carry Prometheus scrape annotations and the topology's
// SHA-256, so that applying a changed topology restarts the pods. With
// both cpu and memory given, a pod's requests equal its limits:
// Guaranteed QoS.
func Objects(t *Topology, o PodOptions) ([]runtime.Object, error) {
	if o.Image == "" {
		return nil, errors.New("writing manifests: no image")
	}
	cm, items, err := configMap(t)
	if err != nil {
		return nil, err
	}
	cm.Name = o.Prefix + cm.Name
	if o.Prefix != "" {
		var peers []string
		for _, s := range t.Services {
			peers = append(peers, "--peer", fmt.Sprintf("%s=http://%s%s:%d", s.Name, o.Prefix, strings.ToLower(s.Name), podPort))
		}
		o.Args = append(peers, o.Args...)
	}
	sum := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		fmt.Fprintf(sum, "%s\x00%s\x00", k, cm.Data[k])
	}
	for _, k := range slices.Sorted(maps.Keys(cm.BinaryData)) {
		fmt.Fprintf(sum, "%s\x00%s\x00", k, cm.BinaryData[k])
	}
	checksum := hex.EncodeToString(sum.Sum(nil))
	objs := []runtime.Object{cm}
	for i, s := range t.Services {
		res, err := podResources(t, i)
		if err != nil {
			return nil, err
		}
		dep, svc := workload(s, o, items, res, checksum)
		objs = append(objs, dep, svc)
	}
	return objs, nil
}

// configMap returns the ConfigMap of t and the volume items that mount its
// keys at their paths.
func configMap(t *Topology) (*corev1.ConfigMap, []corev1.KeyToPath, error) {
	data, err := os.ReadFile(t.File)
	if err != nil {
		return nil, nil, fmt.Errorf("reading topology for its ConfigMap: %w", err)
	}
	d := newDecoder(t.File, t.Dir)
	u, err := d.parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("reading topology for its ConfigMap: %w", err)
	}
	if !slices.EqualFunc(t.Services, u.Services, func(a, b *Service) bool { return a.Name == b.Name }) {
		return nil, nil, fmt.Errorf("reading topology for its ConfigMap: %s has other services than when it was read", t.File)
	}
	dir, err := filepath.Abs(t.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("reading topology for its ConfigMap: %w", err)
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: configMapName, Labels: map[string]string{partOf: "latlab"}},
		Data:       map[string]string{},
	}
	put := func(key string, b []byte) {
		if utf8.Valid(b) {
			cm.Data[key] = string(b)
			return
		}
		if cm.BinaryData == nil {
			cm.BinaryData = map[string][]byte{}
		}
		cm.BinaryData[key] = b
	}
	put(configKey, data)
	items := []corev1.KeyToPath{{Key: configKey, Path: configKey}}
	size := len(configKey) + len(data)
	paths := map[string]string{} // keys by path in the mount
	for i, s := range t.Services {
		for _, name := range slices.Sorted(maps.Keys(s.Jobs)) {
			field := fmt.Sprintf("services[%d].jobs.%s", i, name)
			file := s.Jobs[name]
			rel, err := filepath.Rel(dir, file)
			switch {
			case filepath.IsAbs(d.jobFiles[file]):
				return nil, nil, syntaxError(t, s, field, "%q is an absolute path; a pod sees only files relative to the topology", d.jobFiles[file])
			case err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
				return nil, nil, syntaxError(t, s, field, "%q is outside the topology's folder; a pod sees only files inside it", file)
			}
			rel = filepath.ToSlash(rel)
			if rel == configKey {
				return nil, nil, syntaxError(t, s, field, "%q would be mounted over the topology file in a pod; rename it", d.jobFiles[file])
			}
			if _, ok := paths[rel]; ok {
				continue
			}
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, nil, syntaxError(t, s, field, "%v", err)
			}
			key := configKeyOf(rel, paths)
			paths[rel] = key
			put(key, b)
			items = append(items, corev1.KeyToPath{Key: key, Path: rel})
			size += len(key) + len(b)
		}
	}
	if size > maxConfigMap {
		return nil, nil, fmt.Errorf("writing manifests: the topology and its job files come to %d bytes, more than a ConfigMap holds (1MiB)", size)
	}
	return cm, items, nil
}

// configKeyOf returns a ConfigMap key for the file at rel, a slash
// separated path: its path with dots for slashes and underscores for
// what a key cannot hold, made unique among the keys of taken.
func configKeyOf(rel string, taken map[string]string) string {
	base := strings.Map(func(r rune) rune {
		switch {
		case r == '/':
			return '.'
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, rel)
	if len(base) > 240 {
		base = base[len(base)-240:]
	}
	used := func(k string) bool {
		if k == configKey || k == "." || k == ".." {
			return true
		}
		for _, v := range taken {
			if v == k {
				return true
			}
		}
		return false
	}
	key := base
	for n := 2; used(key); n++ {
		key = fmt.Sprintf("%s-%d", base, n)
	}
	return key
}

// syntaxError returns a *SyntaxError at the line of service s of t.
func syntaxError(t *Topology, s *Service, field, format string, args ...any) error {
	return &SyntaxError{File: t.File, Line: s.Line, Field: field, Msg: s.Name + ": " + fmt.Sprintf(format, args...)}
}

// podResources returns the requests and limits of service i of t, equal
// to each other.
func podResources(t *Topology, i int) (corev1.ResourceRequirements, error) {
	s := t.Services[i]
	if s.Resources == nil {
		return corev1.ResourceRequirements{}, nil
	}
	list := corev1.ResourceList{}
	for _, r := range []struct {
		name  corev1.ResourceName
		field string
		value string
	}{{corev1.ResourceCPU, "cpu", s.Resources.CPU}, {corev1.ResourceMemory, "memory", s.Resources.Memory}} {
		if r.value == "" {
			continue
		}
		q, msg := parseQuantity(r.value)
		if msg != "" {
			return corev1.ResourceRequirements{}, syntaxError(t, s, fmt.Sprintf("services[%d].resources.%s", i, r.field), "%s", msg)
		}
		list[r.name] = q
	}
	return corev1.ResourceRequirements{Requests: list, Limits: list.DeepCopy()}, nil
}

// Labels of the objects.
const (
	appName = "app.kubernetes.io/name"
	partOf  = "app.kubernetes.io/part-of"
)

// workload returns the Deployment and Service of s.
func workload(s *Service, o PodOptions, items []corev1.KeyToPath, res corev1.ResourceRequirements, checksum string) (*appsv1.Deployment, *corev1.Service) {
	name := o.Prefix + strings.ToLower(s.Name)
	// A gRPC service's port says so, by name (as service meshes read it)
	// and by application protocol (HTTP/2 in cleartext); its probes and
	// scrapes reach the same port over HTTP/1.1.
	portName, appProtocol := portName, (*string)(nil)
	if s.Protocol == GRPC {
		portName, appProtocol = "grpc", ptr("kubernetes.io/h2c")
	}
	labels := func() map[string]string { return map[string]string{appName: name, partOf: "latlab"} }
	probe := func(period int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: "/healthz", Port: intstr.FromString(portName), Scheme: corev1.URISchemeHTTP,
			}},
			PeriodSeconds: period, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3,
		}
	}
	replicas := int32(1)
	dep := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels()},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels: labels(),
					Annotations: map[string]string{
						"prometheus.io/scrape": "true",
						"prometheus.io/port":   fmt.Sprint(podPort),
						"prometheus.io/path":   "/metrics",
						checksumKey:            checksum,
					},
				},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  "latlab",
						Image: o.Image,
						Args: append([]string{"serve", "--topology", mountPath + "/" + configKey, "--service", s.Name,
							"--listen", fmt.Sprintf("0.0.0.0:%d", podPort)}, o.Args...),
						Env:            slices.Clone(o.Env),
						Ports:          []corev1.ContainerPort{{Name: portName, ContainerPort: podPort, Protocol: corev1.ProtocolTCP}},
						Resources:      res,
						VolumeMounts:   []corev1.VolumeMount{{Name: "topology", MountPath: mountPath, ReadOnly: true}},
						ReadinessProbe: probe(2),
						LivenessProbe:  probe(10),
					}},
					Volumes: []corev1.Volume{{
						Name: "topology",
						VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: o.Prefix + configMapName},
							Items:                slices.Clone(items),
						}},
					}},
				},
			},
		},
	}
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels()},
		Spec: corev1.ServiceSpec{
			Selector: labels(),
			Ports: []corev1.ServicePort{{
				Name: portName, Port: podPort, TargetPort: intstr.FromString(portName), Protocol: corev1.ProtocolTCP,
				AppProtocol: appProtocol,
			}},
		},
	}
	return dep, svc
}

func ptr[T any](v T) *T { return &v }
