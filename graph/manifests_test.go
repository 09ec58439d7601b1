package graph

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// quantities compares resource quantities by value.
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// objects are the decoded documents of a manifest.
type objects struct {
	kinds       []string
	configMaps  []*corev1.ConfigMap
	deployments map[string]*appsv1.Deployment
	services    map[string]*corev1.Service
}

// decodeManifests decodes every document of data strictly into the typed
// object its kind names.
func decodeManifests(t *testing.T, data []byte) *objects {
	t.Helper()
	o := &objects{deployments: map[string]*appsv1.Deployment{}, services: map[string]*corev1.Service{}}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatal("manifests do not end in a newline")
	}
	for i, doc := range regexp.MustCompile(`(?m)^---\n`).Split(string(data), -1) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		o.kinds = append(o.kinds, tm.Kind)
		var obj any
		switch tm.Kind {
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			o.configMaps = append(o.configMaps, cm)
			obj = cm
		case "Deployment":
			d := &appsv1.Deployment{}
			obj = d
			defer func() { o.deployments[d.Name] = d }()
		case "Service":
			s := &corev1.Service{}
			obj = s
			defer func() { o.services[s.Name] = s }()
		default:
			t.Fatalf("document %d: unexpected kind %q:\n%s", i, tm.Kind, doc)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("document %d (%s): %v", i, tm.Kind, err)
		}
	}
	return o
}

func TestManifests(t *testing.T) {
	top, err := ReadTopology(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Manifests(top, "registry.test/latlab:v1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Manifests(top, "registry.test/latlab:v1")
	if err != nil || !bytes.Equal(out, again) {
		t.Errorf("Manifests is not deterministic (error %v)", err)
	}
	o := decodeManifests(t, out)
	wantKinds := []string{"ConfigMap"}
	for range top.Services {
		wantKinds = append(wantKinds, "Deployment", "Service")
	}
	if diff := cmp.Diff(wantKinds, o.kinds); diff != "" {
		t.Errorf("kinds mismatch (-want +got):\n%s", diff)
	}

	// The ConfigMap holds the files as they are.
	topology, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	job, err := os.ReadFile("testdata/topology/jobs/light.job")
	if err != nil {
		t.Fatal(err)
	}
	cm := o.configMaps[0]
	if cm.Name != "latlab-topology" || cm.Labels["app.kubernetes.io/part-of"] != "latlab" || cm.APIVersion != "v1" {
		t.Errorf("ConfigMap name, labels, apiVersion = %q, %v, %q", cm.Name, cm.Labels, cm.APIVersion)
	}
	wantData := map[string]string{"topology.yaml": string(topology), "jobs.light.job": string(job)}
	if diff := cmp.Diff(wantData, cm.Data); diff != "" || cm.BinaryData != nil {
		t.Errorf("ConfigMap data mismatch (-want +got):\n%s\nbinary: %v", diff, cm.BinaryData)
	}

	for _, s := range top.Services {
		name := strings.ToLower(s.Name)
		labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "latlab"}
		d := o.deployments[name]
		if d == nil {
			t.Fatalf("no Deployment %s", name)
		}
		if d.APIVersion != "apps/v1" || d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
			t.Errorf("Deployment %s: apiVersion %q, replicas %v", name, d.APIVersion, d.Spec.Replicas)
		}
		for what, got := range map[string]map[string]string{
			"labels": d.Labels, "selector": d.Spec.Selector.MatchLabels, "pod labels": d.Spec.Template.Labels,
		} {
			if diff := cmp.Diff(labels, got); diff != "" {
				t.Errorf("Deployment %s %s mismatch (-want +got):\n%s", name, what, diff)
			}
		}
		ann := d.Spec.Template.Annotations
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(ann["latlab/topology-sha256"]) {
			t.Errorf("Deployment %s: checksum annotation %q", name, ann["latlab/topology-sha256"])
		}
		delete(ann, "latlab/topology-sha256")
		wantAnn := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "8080", "prometheus.io/path": "/metrics"}
		if diff := cmp.Diff(wantAnn, ann); diff != "" {
			t.Errorf("Deployment %s annotations mismatch (-want +got):\n%s", name, diff)
		}
		probe := func(period int32) *corev1.Probe {
			return &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: "HTTP"}},
				PeriodSeconds: period, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3,
			}
		}
		var res corev1.ResourceRequirements
		if name == "leafb" {
			list := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("256Mi")}
			res = corev1.ResourceRequirements{Requests: list, Limits: list}
		}
		want := []corev1.Container{{
			Name:           "latlab",
			Image:          "registry.test/latlab:v1",
			Args:           []string{"serve", "--topology", "/etc/latlab/topology.yaml", "--service", s.Name, "--listen", "0.0.0.0:8080"},
			Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}},
			Resources:      res,
			VolumeMounts:   []corev1.VolumeMount{{Name: "topology", MountPath: "/etc/latlab", ReadOnly: true}},
			ReadinessProbe: probe(2),
			LivenessProbe:  probe(10),
		}}
		if diff := cmp.Diff(want, d.Spec.Template.Spec.Containers, quantities); diff != "" {
			t.Errorf("Deployment %s containers mismatch (-want +got):\n%s", name, diff)
		}
		wantVolumes := []corev1.Volume{{Name: "topology", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "latlab-topology"},
			Items:                []corev1.KeyToPath{{Key: "topology.yaml", Path: "topology.yaml"}, {Key: "jobs.light.job", Path: "jobs/light.job"}},
		}}}}
		if diff := cmp.Diff(wantVolumes, d.Spec.Template.Spec.Volumes); diff != "" {
			t.Errorf("Deployment %s volumes mismatch (-want +got):\n%s", name, diff)
		}

		svc := o.services[name]
		if svc == nil {
			t.Fatalf("no Service %s", name)
		}
		if diff := cmp.Diff(labels, svc.Labels); diff != "" {
			t.Errorf("Service %s labels mismatch (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(labels, svc.Spec.Selector); diff != "" {
			t.Errorf("Service %s selector mismatch (-want +got):\n%s", name, diff)
		}
		wantPorts := []corev1.ServicePort{{Name: "http", Port: 8080, TargetPort: intstr.FromString("http"), Protocol: "TCP"}}
		if diff := cmp.Diff(wantPorts, svc.Spec.Ports); diff != "" {
			t.Errorf("Service %s ports mismatch (-want +got):\n%s", name, diff)
		}
	}

	// Guaranteed QoS: every container limits cpu and memory to what it requests.
	c := o.deployments["leafb"].Spec.Template.Spec.Containers[0]
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
		if req.IsZero() || req.Cmp(lim) != 0 {
			t.Errorf("leafb %s: request %v, limit %v; want equal and set", r, &req, &lim)
		}
	}
}

// writeFiles writes files, by slash-separated path under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestManifestsJobs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"g/graph.yaml": "services:\n- name: a\n  jobs: {x: jobs/a.job, y: jobs.a.job, z: 'odd name.job'}\n" +
			"- name: b\n  jobs: {x: ./jobs/a.job, bin: bin.job}\n",
		"g/jobs/a.job":     "cpu 1\n",
		"g/jobs.a.job":     "cpu 2\n",
		"g/odd name.job":   "cpu 3\n",
		"g/bin.job":        "\xff\xfe",
		"g/unused/big.job": strings.Repeat("x", 2<<20),
	})
	top, err := ReadTopology(filepath.Join(dir, "g", "graph.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Manifests(top, "latlab")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeManifests(t, out)
	cm := o.configMaps[0]
	wantData := map[string]string{
		"topology.yaml": "services:\n- name: a\n  jobs: {x: jobs/a.job, y: jobs.a.job, z: 'odd name.job'}\n- name: b\n  jobs: {x: ./jobs/a.job, bin: bin.job}\n",
		"jobs.a.job":    "cpu 1\n", "jobs.a.job-2": "cpu 2\n", "odd_name.job": "cpu 3\n",
	}
	if diff := cmp.Diff(wantData, cm.Data); diff != "" {
		t.Errorf("Data mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string][]byte{"bin.job": []byte("\xff\xfe")}, cm.BinaryData); diff != "" {
		t.Errorf("BinaryData mismatch (-want +got):\n%s", diff)
	}
	wantItems := []corev1.KeyToPath{
		{Key: "topology.yaml", Path: "topology.yaml"},
		{Key: "jobs.a.job", Path: "jobs/a.job"}, {Key: "jobs.a.job-2", Path: "jobs.a.job"}, {Key: "odd_name.job", Path: "odd name.job"},
		{Key: "bin.job", Path: "bin.job"},
	}
	if diff := cmp.Diff(wantItems, o.deployments["b"].Spec.Template.Spec.Volumes[0].ConfigMap.Items); diff != "" {
		t.Errorf("items mismatch (-want +got):\n%s", diff)
	}
}

func TestManifestsErrors(t *testing.T) {
	dir := t.TempDir()
	graphs := filepath.Join(dir, "g")
	writeFiles(t, dir, map[string]string{
		"g/jobs/a.job":    "cpu 1\n",
		"g/topology.yaml": "cpu 1\n",
		"g/big.job":       strings.Repeat("x", 1<<20),
		"shared/b.job":    "cpu 1\n",
	})
	// read writes a topology file in dir/g and reads it.
	read := func(t *testing.T, in string) *Topology {
		t.Helper()
		p := filepath.Join(graphs, "graph.yaml")
		if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		top, err := ReadTopology(p)
		if err != nil {
			t.Fatal(err)
		}
		return top
	}
	file := filepath.Join(graphs, "graph.yaml")
	tests := []struct {
		name  string
		top   func(t *testing.T) *Topology
		image string
		want  string
	}{
		{"bad quantity", func(t *testing.T) *Topology {
			top, err := ReadTopology(exampleFile)
			if err != nil {
				t.Fatal(err)
			}
			top.Services[4].Resources.CPU = "lots"
			return top
		}, "latlab", `testdata/topology/example.yaml:24: services[4].resources.cpu: leafB: "lots" is not a Kubernetes quantity (such as 500m, 2 or 256Mi)`},
		{"no image", func(t *testing.T) *Topology { return read(t, "services: [{name: a}]") }, "", "writing manifests: no image"},
		{"job outside the folder", func(t *testing.T) *Topology {
			return read(t, "services:\n- name: a\n  jobs: {b: ../shared/b.job}\n")
		}, "latlab", fmt.Sprintf("%s:2: services[0].jobs.b: a: %q is outside the topology's folder; a pod sees only files inside it",
			file, filepath.Join(dir, "shared", "b.job"))},
		{"absolute job path", func(t *testing.T) *Topology {
			return read(t, "services:\n- name: a\n- name: b\n  jobs: {a: "+filepath.Join(graphs, "jobs", "a.job")+"}\n")
		}, "latlab", fmt.Sprintf("%s:3: services[1].jobs.a: b: %q is an absolute path; a pod sees only files relative to the topology",
			file, filepath.Join(graphs, "jobs", "a.job"))},
		{"job over the topology", func(t *testing.T) *Topology {
			return read(t, "services:\n- name: a\n  jobs: {t: ./topology.yaml}\n")
		}, "latlab", file + `:2: services[0].jobs.t: a: "./topology.yaml" would be mounted over the topology file in a pod; rename it`},
		{"too big", func(t *testing.T) *Topology {
			return read(t, "services:\n- name: a\n  jobs: {big: big.job}\n")
		}, "latlab", "writing manifests: the topology and its job files come to 1048639 bytes, more than a ConfigMap holds (1MiB)"},
		{"file gone", func(t *testing.T) *Topology {
			top := read(t, "services: [{name: a}]")
			top.File = filepath.Join(graphs, "none.yaml")
			return top
		}, "latlab", "reading topology for its ConfigMap: open " + filepath.Join(graphs, "none.yaml") + ": no such file or directory"},
		{"file changed", func(t *testing.T) *Topology {
			top := read(t, "services: [{name: a}]")
			top.Services[0].Name = "b"
			return top
		}, "latlab", "reading topology for its ConfigMap: " + file + " has other services than when it was read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Manifests(tt.top(t), tt.image)
			if err == nil {
				t.Fatalf("no error, manifests:\n%s", out)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestConfigKeyOf(t *testing.T) {
	taken := map[string]string{}
	for _, tt := range []struct{ rel, want string }{
		{"jobs/light.job", "jobs.light.job"},
		{"jobs.light.job", "jobs.light.job-2"},
		{"a b/c+d.job", "a_b.c_d.job"},
		{"topology.yaml", "topology.yaml-2"},
		{"jobs/ünï.job", "jobs._n_.job"},
	} {
		got := configKeyOf(tt.rel, taken)
		if got != tt.want {
			t.Errorf("configKeyOf(%q) = %q, want %q", tt.rel, got, tt.want)
		}
		taken[tt.rel] = got
	}
}

// A gRPC service's port is named grpc and says HTTP/2 in cleartext; its
// probes still ask /healthz on that port.
func TestManifestsGRPC(t *testing.T) {
	file := filepath.Join(t.TempDir(), "g.yaml")
	if err := os.WriteFile(file, []byte(rpcMesh), 0o600); err != nil {
		t.Fatal(err)
	}
	top, err := ReadTopology(file)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Manifests(top, "registry.test/latlab:v1")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeManifests(t, out)
	for name, wantPort := range map[string]string{"front": "grpc", "reviews": "http"} {
		p := o.services[name].Spec.Ports[0]
		want := map[string]string{"grpc": "kubernetes.io/h2c", "http": ""}[wantPort]
		if p.Name != wantPort || ptrValue(p.AppProtocol) != want {
			t.Errorf("%s: port %q, app protocol %q; want %q, %q", name, p.Name, ptrValue(p.AppProtocol), wantPort, want)
		}
		c := o.deployments[name].Spec.Template.Spec.Containers[0]
		if c.Ports[0].Name != wantPort || c.ReadinessProbe.HTTPGet.Port.String() != wantPort || c.ReadinessProbe.HTTPGet.Path != "/healthz" {
			t.Errorf("%s: container port %q, probe %+v", name, c.Ports[0].Name, c.ReadinessProbe.HTTPGet)
		}
	}
}

func ptrValue(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
