package experiment

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/spec"
)

// mustParse parses text as a spec in an empty folder: the runner's
// tests' specs name no files.
func mustParse(t *testing.T, text string) *spec.Spec {
	t.Helper()
	s, err := spec.ParseSpec("spec.yaml", []byte(text), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// writeFiles writes files, by name, into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// topupSpec is a spec whose runs the top-up tests raise.
const topupSpec = `version: 1
name: topup
variants:
  - {name: plain, target: 'http://127.0.0.1:9000/'}
  - {name: filter, target: 'http://127.0.0.1:9001/', load: {path: /busywork}}
load: {rates: [100, 200], duration: 10s}
warmup: {duration: 5s, rate: 50%}
validity: {max_error_ratio: 1%}
`
