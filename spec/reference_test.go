package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// specDocPath is the Markdown spec reference, from this package's folder.
const specDocPath = "../docs/spec.md"

// TestSpecReferenceComplete checks that every key the spec's types give
// is documented in specDocs, and that specDocs documents no other.
func TestSpecReferenceComplete(t *testing.T) {
	keys := SpecKeys()
	found := map[string]bool{}
	documented := 0
	for _, k := range keys {
		if found[k.Key] {
			t.Errorf("spec key %s is listed twice", k.Key)
		}
		found[k.Key] = true
		if k.Type == "" {
			t.Errorf("spec key %s has no type", k.Key)
		}
		d, ok := specDocs[k.Key]
		switch {
		case !ok:
			t.Errorf("spec key %s is not documented: add it to specDocs in reference_docs.go (or reference_docs_*.go)", k.Key)
		case strings.TrimSpace(d.doc) == "":
			t.Errorf("spec key %s has no doc: write it in reference_docs.go (or reference_docs_*.go)", k.Key)
		default:
			documented++
		}
	}
	for _, key := range SortedKeys(specDocs) {
		if !found[key] {
			t.Errorf("specDocs documents %s, which no field of the spec's types gives: remove or rename it in reference_docs.go (or reference_docs_*.go)", key)
		}
	}
	for _, key := range specDocDups {
		t.Errorf("spec key %s is documented twice in reference_docs*.go", key)
	}
	t.Logf("%d keys, %d documented", len(keys), documented)
}

// TestSpecReferenceKeys checks some keys whose place the reflection over
// the spec's types must work out: fields sharing a key, fields written
// under another key, and a variant's load.
func TestSpecReferenceKeys(t *testing.T) {
	types := map[string]string{}
	for _, k := range refKeys() {
		types[k.Key] = k.Type
	}
	for key, typ := range map[string]string{
		"runs":                                  "integer, auto or mapping",
		"runs.precision":                        "percent (10%) or duration (10s, 500ms)",
		"warmup.rate":                           "same, percent (50%) or rate (500, 500/s)",
		"variants[].load":                       "mapping of load keys",
		"load.mode":                             "one of open, closed, ramp, sequential",
		"load.rates":                            "list of rates (500, 500/s)",
		"load.ramp.every":                       "duration (10s, 500ms)",
		"load.on":                               "one of local, kubernetes",
		"load.shards":                           "integer",
		"load.tolerations[].toleration_seconds": "integer",
		"slo.pNN":                               "duration (10s, 500ms)",
		"slo.errors":                            "percent (10%)",
		"variants[].expect":                     "mapping of percentile to duration",
	} {
		if got, ok := types[key]; !ok {
			t.Errorf("no key %s", key)
		} else if got != typ {
			t.Errorf("%s: type %q, want %q", key, got, typ)
		}
	}
	for _, key := range []string{"load_pod", "load_pod.image", "load_shards", "warmup.share", "variants[].load.rates", "slo.latency"} {
		if _, ok := types[key]; ok {
			t.Errorf("key %s listed: a spec does not write it", key)
		}
	}
}

// TestSpecReferenceText checks that the text reference names every key.
func TestSpecReferenceText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSpecReference(&b, false); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, k := range SpecKeys() {
		if !strings.Contains(text, "\n"+k.Key+": ") {
			t.Errorf("the text reference has no line for %s", k.Key)
		}
	}
}

// TestSpecReferenceDoc checks that docs/spec.md is what latlab spec
// --markdown writes; with LATLAB_UPDATE_SPEC_DOC=1 it writes the file.
func TestSpecReferenceDoc(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSpecReference(&b, true); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LATLAB_UPDATE_SPEC_DOC") == "1" {
		if err := os.MkdirAll(filepath.Dir(specDocPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(specDocPath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", specDocPath)
		return
	}
	const fix = "run go run ./cmd/latlab spec --markdown > docs/spec.md (or LATLAB_UPDATE_SPEC_DOC=1 go test ./experiment -run TestSpecReferenceDoc)"
	got, err := os.ReadFile(specDocPath)
	if err != nil {
		t.Fatalf("%v: %s", err, fix)
	}
	if bytes.Equal(got, b.Bytes()) {
		return
	}
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(b.String(), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w string
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			t.Fatalf("docs/spec.md is not what latlab spec --markdown writes: %s\nline %d is\n\t%s\nwant\n\t%s", fix, i+1, g, w)
		}
	}
	t.Fatalf("docs/spec.md is not what latlab spec --markdown writes: %s", fix)
}
