package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/latlab/latlab/cluster"
)

// kubeconfig writes a kubeconfig for s as admin and returns its path.
func (s *apiServer) kubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(s.dir, "kubeconfig")
	writeFile(t, path, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: admin, user: {token: %q}}]
contexts: [{name: test, context: {cluster: test, user: admin}}]
current-context: test
`, s.url, s.caFile, token("admin")))
	return path
}

const webManifests = `apiVersion: v1
kind: ConfigMap
metadata: {name: %[1]s-config}
data: {greeting: hello}
---
apiVersion: v1
kind: Service
metadata: {name: %[1]s}
spec:
  selector: {app: %[1]s}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s}
spec:
  replicas: 1
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers: [{name: web, image: example.invalid/web:1}]
`

// TestClusterApply applies objects to a real kube-apiserver with
// server-side apply, labelled, finds them as leftovers by experiment,
// explains why they never become ready (no controller runs here) and
// deletes them, one experiment's without touching another's.
func TestClusterApply(t *testing.T) {
	s := startAPIServer(t)
	c, err := cluster.Connect(cluster.Options{Kubeconfig: s.kubeconfig(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Where, "context test") {
		t.Errorf("Where = %q, want the context named", c.Where)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	apply := func(name, experiment string) *cluster.Set {
		t.Helper()
		objs, err := cluster.ParseManifests(name+".yaml", fmt.Appendf(nil, webManifests, name))
		if err != nil {
			t.Fatal(err)
		}
		set, err := c.Apply(ctx, objs, "default", cluster.Labels(experiment, name))
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	a := apply("web", "exp-a")
	apply("web", "exp-a") // again: server-side apply makes no conflict with itself
	b := apply("other", "exp-b")
	if got := len(a.Refs); got != 3 || a.CreatedNamespace {
		t.Fatalf("applied %d objects (created namespace %v), want 3 in default", got, a.CreatedNamespace)
	}
	// Service before Deployment, whatever the file's order.
	if a.Refs[1].Kind != "Service" || a.Refs[2].Kind != "Deployment" {
		t.Errorf("applied in the order %v", a.Refs)
	}

	u, err := c.Dynamic.Resource(appsv1.SchemeGroupVersion.WithResource("deployments")).Namespace("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var dep appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &dep); err != nil {
		t.Fatal(err)
	}
	if got := dep.Spec.Template.Labels[cluster.LabelExperiment]; got != "exp-a" {
		t.Errorf("pod template label %s = %q, want exp-a", cluster.LabelExperiment, got)
	}
	if got := dep.Labels[cluster.LabelManagedBy]; got != "latlab" {
		t.Errorf("label %s = %q, want latlab", cluster.LabelManagedBy, got)
	}
	if !slices.ContainsFunc(dep.ManagedFields, func(f metav1.ManagedFieldsEntry) bool {
		return f.Manager == cluster.FieldManager && f.Operation == metav1.ManagedFieldsOperationApply
	}) {
		t.Errorf("no server-side apply by %s in %+v", cluster.FieldManager, dep.ManagedFields)
	}

	// No controller runs beside this API server: the Deployment never
	// rolls out and the Service has no endpoint, and the error says so.
	err = c.WaitReady(ctx, a, 2*time.Second)
	var nr *cluster.NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("WaitReady: %v, want a *NotReadyError", err)
	}
	for _, want := range []string{"service/web in default: no ready endpoint", "deployment/web in default:", "no pod exists for it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("WaitReady's error lacks %q:\n%v", want, err)
		}
	}

	left, err := c.Leftovers(ctx, "exp-a")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range left {
		names = append(names, l.Kind+"/"+l.Name+" "+l.Variant)
	}
	if want := []string{"ConfigMap/web-config web", "Service/web web", "Deployment/web web"}; !slices.Equal(names, want) {
		t.Errorf("leftovers of exp-a: %v, want %v", names, want)
	}
	all, err := c.Leftovers(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Errorf("leftovers of every experiment: %d, want 6", len(all))
	}

	// The command line lists the same, as text and JSON.
	latlab := filepath.Join(t.TempDir(), "latlab")
	if out, err := exec.Command("go", "build", "-o", latlab, "../../cmd/latlab").CombinedOutput(); err != nil {
		t.Fatalf("building latlab: %v\n%s", err, out)
	}
	out, err := exec.Command(latlab, "ls", "--kubernetes", "--kubeconfig", s.kubeconfig(t), "exp-b").CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^exp-b +other +Deployment +default +other +\d+s$`).Match(out) ||
		strings.Contains(string(out), "exp-a") {
		t.Errorf("latlab ls --kubernetes exp-b: %v\n%s", err, out)
	}
	out, err = exec.Command(latlab, "ls", "--kubernetes", "--kubeconfig", s.kubeconfig(t), "--format", "json").CombinedOutput()
	var listed struct {
		Objects []struct{ Experiment, Kind, Name string }
	}
	if err != nil || json.Unmarshal(out, &listed) != nil || len(listed.Objects) != 6 {
		t.Errorf("latlab ls --kubernetes --format json: %v, %d objects\n%s", err, len(listed.Objects), out)
	}

	if err := c.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	if left, err := c.Leftovers(ctx, "exp-a"); err != nil || len(left) != 0 {
		t.Errorf("after Delete, exp-a left %v (%v)", left, err)
	}
	out, err = exec.Command(latlab, "clean", "--kubernetes", "--dry-run", "--kubeconfig", s.kubeconfig(t), "exp-b").CombinedOutput()
	if err != nil || strings.Count(string(out), "would delete ") != len(b.Refs) {
		t.Errorf("latlab clean --kubernetes --dry-run exp-b: %v, want %d objects listed\n%s", err, len(b.Refs), out)
	}
	out, err = exec.Command(latlab, "clean", "--kubernetes", "--kubeconfig", s.kubeconfig(t), "exp-b").CombinedOutput()
	if err != nil || strings.Count(string(out), "deleted ") != len(b.Refs) {
		t.Errorf("latlab clean --kubernetes exp-b: %v, want %d objects deleted\n%s", err, len(b.Refs), out)
	}
	if left, err := c.Leftovers(ctx, ""); err != nil || len(left) != 0 {
		t.Errorf("after Clean, left %v (%v)", left, err)
	}
}
