package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestParseManifests(t *testing.T) {
	data := `# two objects and a list
apiVersion: v1
kind: ConfigMap
metadata: {name: one}
data: {a: "1"}
---
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
---
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: Service, metadata: {name: web}}
  - {apiVersion: v1, kind: Secret, metadata: {name: s}}
`
	objs, err := ParseManifests("m.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.GetKind()+"/"+o.GetName())
	}
	if diff := cmp.Diff([]string{"ConfigMap/one", "Deployment/web", "Service/web", "Secret/s"}, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	r, _, _ := unstructured.NestedInt64(objs[1].Object, "spec", "replicas")
	if r != 2 {
		t.Errorf("replicas = %d, want 2 (as an integer)", r)
	}
}

func TestParseManifestsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"no kind", "apiVersion: v1\nmetadata: {name: a}\n", "m.yaml:1: kind: missing"},
		{"no apiVersion", "kind: Pod\nmetadata: {name: a}\n", "m.yaml:1: apiVersion: missing"},
		{"no name", "---\napiVersion: v1\nkind: Pod\nmetadata: {generateName: a-}\n", "m.yaml:2: metadata.name: missing"},
		{"a list", "- a\n- b\n", "m.yaml:1: a Kubernetes object is a mapping, not a sequence"},
		{"bad yaml", "apiVersion: v1\nkind: [\n", "m.yaml:2: did not find expected node content"},
		{"list item", "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Pod}\n", "items[0].metadata.name: missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifests("m.yaml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestReadManifestsFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: b}\n")
	write("a.json", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}`)
	write("notes.txt", "not a manifest")
	objs, err := ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].GetName() != "a" || objs[1].GetName() != "b" {
		t.Errorf("read %d objects, want a then b", len(objs))
	}
	if _, err := ReadManifests(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing path read without an error")
	}
	empty := t.TempDir()
	if _, err := ReadManifests(empty); err == nil || !strings.Contains(err.Error(), "no .yaml") {
		t.Errorf("an empty folder: error %v", err)
	}
}

func TestFromObjects(t *testing.T) {
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	objs, err := FromObjects(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := objs[0].Object["status"]; ok {
		t.Error("the converted object keeps a status")
	}
	if _, err := FromObjects(&appsv1.Deployment{}); err == nil {
		t.Error("an object without apiVersion and kind converted without an error")
	}
}

func TestAddLabels(t *testing.T) {
	objs, err := ParseManifests("m.yaml", []byte("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, labels: {keep: me}}\nspec: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if err := addLabels(o, map[string]string{"x": "1"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"keep": "me", "x": "1"}, o.GetLabels()); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	pl, _, _ := unstructured.NestedStringMap(o.Object, podTemplates["CronJob"]...)
	if pl["x"] != "1" {
		t.Errorf("pod template labels %v, want x=1", pl)
	}
}
