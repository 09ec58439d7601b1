package layout

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers are latlab's packages from the top down, as the README's layout
// table lists them. Internal packages, those of test/ and those whose name
// ends in test (remote/remotetest) help any layer's tests.
var layers = [][]string{
	{"cmd/latlab"},
	{"demo"},
	{"experiment"},
	{"shard"},
	{"remote"},
	{"report", "report/plot"},
	{"benchcmp"},
	{"analysis"},
	{"spec"},
	{"load", "graph", "cluster", "probe", "middleware"},
	{"store", "record", "yamlfile", "units"},
}

const module = "github.com/latlab/latlab/"

// TestLayers fails on an import that points up the layers, and on a
// package of the module that no layer lists.
func TestLayers(t *testing.T) {
	layer := map[string]int{}
	for i, ps := range layers {
		for _, p := range ps {
			layer[p] = i
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]map[string]bool{} // package → what its non-test files import of the module
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" && !strings.HasPrefix(path, filepath.Join(root, "cmd")) {
			return nil // a tool or example of its own, not a layer
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if imports[rel] == nil {
			imports[rel] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if q, ok := strings.CutPrefix(p, module); ok {
				imports[rel][q] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, ims := range imports {
		if strings.HasPrefix(p, "internal/") || strings.HasPrefix(p, "test/") || strings.HasSuffix(p, "test") {
			continue // helpers of tests, as httptest is
		}
		from, ok := layer[p]
		if !ok {
			t.Errorf("package %s is in no layer: add it to the README's layout table and to layers here", p)
			continue
		}
		for q := range ims {
			if to, ok := layer[q]; ok && to < from {
				t.Errorf("%s imports %s, a layer above it", p, q)
			}
		}
	}
	for p := range layer {
		if _, ok := imports[p]; !ok {
			t.Errorf("layer lists %s, which holds no Go package", p)
		}
	}
}
