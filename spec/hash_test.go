package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/internal/golden"
)

// checkGolden compares got with the file testdata/name (see
// golden.Check).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got))
}

// hashSpec is the spec the hash tests vary.
const hashSpec = `version: 1
name: h
variants:
  - name: plain
    graph: graphs/chain.yaml
  - name: ext
    target: http://127.0.0.1:9000/
    load: {path: /busywork}
load:
  rates: [100, 200]
  duration: 10s
  targets: targets.txt
warmup: {duration: 5s, rate: 50%}
validity: {max_error_ratio: 1%}
`

func TestHashIgnoresForm(t *testing.T) {
	base := mustParse(t, hashSpec)
	same := []struct{ name, spec string }{
		{"comments and blank lines", "# a study\n" + strings.ReplaceAll(hashSpec, "\n  rates: [100, 200]", "\n\n  rates: [100, 200]  # per second\n")},
		{"key order", `name: h
validity: {max_error_ratio: 0.01}
load: {targets: targets.txt, duration: 10s, rates: [100, 200]}
warmup: {rate: 50%, duration: 5s}
variants:
  - {graph: graphs/chain.yaml, name: plain}
  - {load: {path: /busywork}, target: 'http://127.0.0.1:9000/', name: ext}
version: 1
`},
		{"defaults written out", hashSpec + "runs: 1\norder: interleaved\nrestart: never\nbaseline: plain\n"},
		{"samples_for written out", strings.Replace(hashSpec, "max_error_ratio: 1%}", "max_error_ratio: 1%, samples_for: p99}", 1)},
		{"anchors", strings.Replace(hashSpec, "rates: [100, 200]", "rates: &r [100, 200]", 1)},
		{"equal numbers", strings.Replace(hashSpec, "rates: [100, 200]", "rates: [1e2, 200.0]", 1)},
	}
	for _, tt := range same {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.spec)
			if s.Hash() != base.Hash() {
				t.Errorf("hash changed:\n%s", Diff(base, s))
			}
			if d := Diff(base, s); d != "" {
				t.Errorf("diff of equal specs:\n%s", d)
			}
		})
	}
	changed := []struct{ name, old, new string }{
		{"a rate", "rates: [100, 200]", "rates: [100, 200, 400]"},
		{"rate order", "rates: [100, 200]", "rates: [200, 100]"},
		{"a duration", "duration: 10s", "duration: 11s"},
		{"a variant's override", "{path: /busywork}", "{path: /busywork, method: POST}"},
		{"warm-up", "rate: 50%", "rate: 60%"},
		{"a default", "validity: {max_error_ratio: 1%}", "validity: {max_error_ratio: 1%, cpu_budget: 50%}"},
		{"samples_for", "validity: {max_error_ratio: 1%}", "validity: {max_error_ratio: 1%, samples_for: p90}"},
		{"the seed", "version: 1", "version: 1\nseed: 0"},
	}
	for _, tt := range changed {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, strings.Replace(hashSpec, tt.old, tt.new, 1))
			if s.Hash() == base.Hash() {
				t.Error("hash did not change")
			}
		})
	}
}

// copySpecs copies testdata/specs to a new folder and returns it.
func copySpecs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := os.CopyFS(dir, os.DirFS("testdata/specs"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHashFollowsFiles(t *testing.T) {
	for _, file := range []string{"graphs/chain.yaml", "targets.txt", "body.json"} {
		t.Run(file, func(t *testing.T) {
			dir := copySpecs(t)
			before, err := ParseSpec("spec.yaml", []byte(hashSpec), dir)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, file)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(data, "\n# changed\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			after, err := ParseSpec("spec.yaml", []byte(hashSpec), dir)
			if err != nil {
				t.Fatal(err)
			}
			if before.Hash() == after.Hash() {
				t.Fatal("hash did not change")
			}
			d := Diff(before, after)
			if !strings.Contains(d, "files[") || strings.Count(d, "\n") != 1 {
				t.Errorf("diff:\n%s\nwant one line naming the file", d)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	dir := copySpecs(t)
	old, err := ParseSpec("spec.yaml", []byte(hashSpec), dir)
	if err != nil {
		t.Fatal(err)
	}
	newSpec := strings.NewReplacer(
		"rates: [100, 200]", "rates: [100, 200, 400]",
		"  - name: ext\n", "  - name: filter\n    graph: graphs/chain-filter.yaml\n  - name: ext\n",
		"{path: /busywork}", "{path: /busywork, body: 'a b'}",
		"warmup: {duration: 5s, rate: 50%}\n", "",
	).Replace(hashSpec)
	if err := os.WriteFile(filepath.Join(dir, "graphs", "chain.yaml"), []byte("services: [{name: root}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cur, err := ParseSpec("spec.yaml", []byte(newSpec), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `variants: [plain ext] → [plain filter ext]
load.rates: [100 200] → [100 200 400]
warmup.duration: 5s → (none)
warmup.share: 50% → (none)
files["graphs/chain.yaml"]: 91f08e480ccd → cd08a38d772a
variants[filter].graph: (none) → graphs/chain-filter.yaml
variants[filter].ready_timeout: (none) → 30s
variants[ext].load.body: (none) → "a b"
files["graphs/chain-filter.yaml"]: (none) → 860549f631a2
`
	got := Diff(old, cur)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
	if got := DiffCanonical(old.Canonical(), cur.Canonical()); got != want {
		t.Errorf("DiffCanonical differs from Diff:\n%s", got)
	}
}

func TestCanonicalGolden(t *testing.T) {
	s, err := ReadSpec("testdata/specs/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "full.canonical", s.Canonical())
	if len(s.Hash()) != 64 {
		t.Errorf("hash %q is not hex SHA-256", s.Hash())
	}
}
