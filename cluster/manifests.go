package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/latlab/latlab/yamlfile"
)

// maxManifest bounds the size of one manifest file.
const maxManifest = 16 << 20

// ReadManifests reads the Kubernetes objects of path: a YAML or JSON file
// of one or more documents, or a folder whose .yaml, .yml and .json files
// are read in name order (not its subfolders). A List's items count as
// objects of their own. Every object needs apiVersion, kind and
// metadata.name; errors are *yamlfile.SyntaxError, naming the file, the
// line of the document and the field.
func ReadManifests(path string) ([]*unstructured.Unstructured, error) {
	files, err := ManifestFiles(path)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		objs, err := readManifestFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	if len(out) == 0 {
		return nil, &yamlfile.SyntaxError{File: path, Msg: "no Kubernetes object in it"}
	}
	return out, nil
}

// ManifestFiles returns the files ReadManifests reads from path: path
// itself, or the .yaml, .yml and .json files of the folder path in name
// order.
func ManifestFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading manifests: %w", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("reading manifests: %w", err)
	}
	var files []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.Type().IsRegular() && slices.Contains([]string{".yaml", ".yml", ".json"}, ext) {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("reading manifests: %s holds no .yaml, .yml or .json file", path)
	}
	return files, nil
}

// readManifestFile reads the objects of one file.
func readManifestFile(file string) ([]*unstructured.Unstructured, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("reading manifests: %w", err)
	}
	if fi.Size() > maxManifest {
		return nil, &yamlfile.SyntaxError{File: file, Msg: fmt.Sprintf("larger than %d MiB", maxManifest>>20)}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading manifests: %w", err)
	}
	return ParseManifests(file, data)
}

// ParseManifests reads the objects of data, the contents of file (named in
// errors).
func ParseManifests(file string, data []byte) ([]*unstructured.Unstructured, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*unstructured.Unstructured
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, yamlfile.ParseError(file, yamlfile.Lines(data), err)
		}
		if len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
			continue // an empty document
		}
		objs, err := manifestObjects(file, doc.Content[0])
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

// manifestObjects returns the object of the document n, or a List's items.
func manifestObjects(file string, n *yaml.Node) ([]*unstructured.Unstructured, error) {
	bad := func(line int, format string, args ...any) error {
		return &yamlfile.SyntaxError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if !yamlfile.IsMapping(n) {
		return nil, bad(n.Line, "a Kubernetes object is a mapping, not %s", yamlfile.Describe(yamlfile.Deref(n)))
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, bad(n.Line, "%v", err)
	}
	if m, ok := v.(map[string]any); ok {
		for _, key := range []string{"apiVersion", "kind"} {
			if s, ok := m[key].(string); !ok || s == "" {
				return nil, bad(n.Line, "%s: missing", key)
			}
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, bad(n.Line, "not an object JSON can hold (a key that is not a string?): %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, bad(n.Line, "%v", err)
	}
	if u.IsList() {
		list, err := u.ToList()
		if err != nil {
			return nil, bad(n.Line, "%v", err)
		}
		var out []*unstructured.Unstructured
		for i := range list.Items {
			it := &list.Items[i]
			if it.GetName() == "" {
				return nil, bad(n.Line, "items[%d].metadata.name: missing", i)
			}
			out = append(out, it)
		}
		return out, nil
	}
	if u.GetName() == "" {
		return nil, bad(n.Line, "metadata.name: missing (generateName cannot be applied)")
	}
	return []*unstructured.Unstructured{u}, nil
}

// FromObjects returns typed API objects (k8s.io/api's) as unstructured
// ones, to be applied.
func FromObjects(objs ...runtime.Object) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return nil, fmt.Errorf("converting %T: %w", o, err)
		}
		u := &unstructured.Unstructured{Object: m}
		// What the server sets is not ours to apply.
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		unstructured.RemoveNestedField(u.Object, "status")
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("converting %T %s: no apiVersion or kind", o, u.GetName())
		}
		out = append(out, u)
	}
	return out, nil
}
