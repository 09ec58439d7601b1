package remote

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
)

// writeFiles writes files, by slash-separated path under dir; a path
// ending in .sh is made executable.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// testCA returns a PEM certificate, as a load's cacert reads it.
func testCA(t *testing.T) string {
	t.Helper()
	srv := httptest.NewTLSServer(nil)
	defer srv.Close()
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

// bundleSpec writes a spec under dir/exp naming a file of every kind a
// bundle carries — a scenario with a user's token file and a body file, a
// body file outside the spec's folder, a CA certificate, a graph with a
// job file — and a setup command, which it does not; and reads it.
func bundleSpec(t *testing.T, dir string) *spec.Spec {
	t.Helper()
	writeFiles(t, dir, map[string]string{
		"exp/spec.yaml": `version: 1
name: bundle
variants:
  - name: scen
    target: http://127.0.0.1:1/
    setup: ./setup.sh
    load: {scenario: scenario.yaml}
  - name: body
    target: http://127.0.0.1:1/
    load: {method: POST, body_file: ../shared/body.txt, cacert: ca.pem}
  - name: graph
    graph: graphs/g.yaml
load: {mode: open, rates: [10], duration: 1s}
`,
		"exp/setup.sh": "#!/bin/sh\n",
		"exp/scenario.yaml": `users:
  - {name: alice, token_file: tokens/alice.token}
steps:
  - name: create
    method: POST
    url: http://x.invalid/objects/{{.Iter}}
    headers: {Authorization: "Bearer {{.User.Token}}"}
    body_file: bodies/create.json
  - name: get
    url: http://x.invalid/objects/{{.Iter}}
`,
		"exp/tokens/alice.token": "s3cret\n",
		"exp/bodies/create.json": `{"n": 1}`,
		"shared/body.txt":        "hello",
		"exp/ca.pem":             testCA(t),
		"exp/graphs/g.yaml": `services:
  - name: root
    jobs: {light: ../jobs/light.job}
    script:
      - busywork: 1ms
`,
		"exp/jobs/light.job": "run sequential\ncpu 1\n",
	})
	s, err := spec.ReadSpec(filepath.Join(dir, "exp", "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBundleFiles holds a bundle to the files its trial needs, laid out
// under their common folder, and an agent's reading of it to the spec read
// here: the same files by the same hashes, the same requests.
func TestBundleFiles(t *testing.T) {
	dir := t.TempDir()
	s := bundleSpec(t, dir)
	common := []string{"exp/bodies/create.json", "exp/graphs/g.yaml", "exp/jobs/light.job", "exp/scenario.yaml",
		"exp/spec.yaml", "exp/tokens/alice.token", "shared/body.txt"}
	for _, tt := range []struct {
		variant string
		want    []string
	}{
		{"scen", common},
		{"body", slices.Sorted(slices.Values(append([]string{"exp/ca.pem"}, common...)))}, // its load's CA certificate
	} {
		t.Run(tt.variant, func(t *testing.T) {
			trial := spec.Trial{Variant: tt.variant, Level: record.Level{Rate: 10}, Rep: 1, Position: 2}
			b, err := NewBundle(s, trial, "", 25)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range b.Files {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if b.Spec != "exp/spec.yaml" || b.Trial != trial || b.Samples != 25 {
				t.Errorf("bundle of spec %q, trial %+v, samples %d; want exp/spec.yaml, %+v, 25", b.Spec, b.Trial, b.Samples, trial)
			}
			for _, f := range b.Files {
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err != nil || string(want) != string(f.Data) {
					t.Errorf("%s: bundled %q, the file holds %q (%v)", f.Path, f.Data, want, err)
				}
			}

			got2, err := b.open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.FileSums(), got2.FileSums()); diff != "" {
				t.Errorf("the agent's spec read other files (-here +agent):\n%s", diff)
			}
			_, here, err := (&Bundle{Trial: trial, Samples: 25}).loads(s)
			if err != nil {
				t.Fatal(err)
			}
			_, there, err := b.loads(got2)
			if err != nil {
				t.Fatal(err)
			}
			if here.KeepRaw != 25 || there.KeepRaw != 25 || here.Duration != there.Duration {
				t.Errorf("loads keep %d and %d raw, last %s and %s; want 25 and the same", here.KeepRaw, there.KeepRaw, here.Duration, there.Duration)
			}
			for step := range here.Source.Steps() {
				rh, err1 := here.Source.Request(step, load.Vars{Iter: 3, Seq: 3})
				rt, err2 := there.Source.Request(step, load.Vars{Iter: 3, Seq: 3})
				if err1 != nil || err2 != nil {
					t.Fatalf("step %d: %v, %v", step, err1, err2)
				}
				if rh.Method != rt.Method || rh.URL.String() != rt.URL.String() || string(rh.Body) != string(rt.Body) ||
					!slices.Equal(rh.Header.Values("Authorization"), rt.Header.Values("Authorization")) {
					t.Errorf("step %d: here %s %s %q, agent %s %s %q", step, rh.Method, rh.URL, rh.Body, rt.Method, rt.URL, rt.Body)
				}
			}
		})
	}
}

// TestBundleRefuses holds Spec.Bundle to an error naming the spec's file,
// line and field for a file it cannot carry.
func TestBundleRefuses(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "abs.txt")
	writeFiles(t, filepath.Dir(abs), map[string]string{"abs.txt": "x", "abs.token": "t0k\n"})
	for _, tt := range []struct {
		name   string
		files  map[string]string
		change func(dir string) // after the spec is read
		want   string
	}{
		{
			name:  "absolute body file",
			files: map[string]string{"spec.yaml": "version: 1\nname: a\nvariants: [{name: v, target: 'http://127.0.0.1:1/'}]\nload:\n  rates: [1]\n  body_file: " + abs + "\n"},
			want:  "spec.yaml:6: load.body_file: " + abs + " is an absolute path",
		},
		{
			name: "absolute token file in a scenario",
			files: map[string]string{
				"spec.yaml": "version: 1\nname: a\nvariants: [{name: v, target: 'http://127.0.0.1:1/'}]\nload:\n  rates: [1]\n  scenario: sc.yaml\n",
				"sc.yaml":   "users: [{name: u, token_file: " + strings.TrimSuffix(abs, ".txt") + ".token}]\nsteps: [{url: 'http://x.invalid/'}]\n",
			},
			want: "spec.yaml:6: load.scenario: in sc.yaml: " + strings.TrimSuffix(abs, ".txt") + ".token is an absolute path",
		},
		{
			name:   "changed since read",
			files:  map[string]string{"spec.yaml": "version: 1\nname: a\nvariants: [{name: v, target: 'http://127.0.0.1:1/'}]\nload:\n  rates: [1]\n  body_file: b.txt\n", "b.txt": "before"},
			change: func(dir string) { writeFiles(t, dir, map[string]string{"b.txt": "after"}) },
			want:   "spec.yaml:6: load.body_file: b.txt changed since the spec was read",
		},
		{
			name:  "missing CA certificate",
			files: map[string]string{"spec.yaml": "version: 1\nname: a\nvariants: [{name: v, target: 'https://127.0.0.1:1/'}]\nload:\n  rates: [1]\n  cacert: ca.pem\n"},
			want:  "spec.yaml:6: load.cacert: ",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			s, err := spec.ReadSpec(filepath.Join(dir, "spec.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(dir)
			}
			_, err = NewBundle(s, spec.Trial{Variant: "v", Level: record.Level{Rate: 1}, Rep: 1, Position: 1}, "", 0)
			var se *spec.SyntaxError
			if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Bundle = %v, want a *SyntaxError like %q", err, tt.want)
			}
			if se.File != filepath.Join(dir, "spec.yaml") || se.Line != 6 {
				t.Errorf("error at %s:%d, want %s:6", se.File, se.Line, filepath.Join(dir, "spec.yaml"))
			}
		})
	}
	if _, err := NewBundle(&spec.Spec{}, spec.Trial{Variant: "v"}, "", 0); err == nil || !strings.Contains(err.Error(), "not read by ParseSpec") {
		t.Errorf("a spec made by hand: %v, want an error saying it was not read", err)
	}
	s := bundleSpec(t, t.TempDir())
	if _, err := NewBundle(s, spec.Trial{Variant: "nope", Position: 4}, "", 0); err == nil || !strings.Contains(err.Error(), `trial 4: no variant called "nope"`) {
		t.Errorf("an unknown variant: %v", err)
	}
}

// TestBundleJSON round-trips a bundle through its JSON, and holds an
// agent's reading of it to refuse what it cannot run.
func TestBundleJSON(t *testing.T) {
	b := &Bundle{Spec: "exp/spec.yaml", Files: []BundleFile{{Path: "exp/spec.yaml", Data: []byte("version: 1\n")}, {Path: "bin.dat", Data: []byte{0, 255}}},
		Trial: spec.Trial{Variant: "v", Level: record.Level{Rate: 0.1 + 0.2, Concurrency: 3}, Rep: 2, Position: 7},
		Entry: "http://127.0.0.1:5/", Samples: 9, StartAt: time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var got Bundle
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b, &got); diff != "" {
		t.Errorf("bundle back from %s differs (-sent +got):\n%s", data, diff)
	}
	for _, tt := range []struct{ in, want string }{
		{`{"spec": "s"}`, "no format: not a latlab trial bundle"},
		{`{"format": 2}`, "format 2: this latlab reads format 1"},
		{`{"format": 1, "extra": 1}`, `unknown field "extra"`},
		{`[]`, "reading bundle: "},
	} {
		var b Bundle
		if err := json.Unmarshal([]byte(tt.in), &b); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
	for _, tt := range []struct {
		b    Bundle
		want string
	}{
		{Bundle{Spec: "s", Files: []BundleFile{{Path: "../s"}}, Trial: spec.Trial{Variant: "v"}}, `files[0]: "../s" is not a relative path inside`},
		{Bundle{Spec: "s", Files: []BundleFile{{Path: "/s"}}, Trial: spec.Trial{Variant: "v"}}, `files[0]: "/s" is not a relative path inside`},
		{Bundle{Spec: "s", Files: []BundleFile{{Path: "a/../s"}}, Trial: spec.Trial{Variant: "v"}}, `files[0]: "a/../s" is not a relative path inside`},
		{Bundle{Spec: "s", Files: []BundleFile{{Path: `a\s`}}, Trial: spec.Trial{Variant: "v"}}, `is not a relative path inside`},
		{Bundle{Spec: "s", Files: []BundleFile{{Path: "s"}, {Path: "s"}}, Trial: spec.Trial{Variant: "v"}}, `files[1]: "s" twice`},
		{Bundle{Spec: "t", Files: []BundleFile{{Path: "s"}}, Trial: spec.Trial{Variant: "v"}}, `spec: "t" is not among the files`},
		{Bundle{Spec: "s", Files: []BundleFile{{Path: "s"}}}, `trial: no variant`},
		{Bundle{Spec: "s", Files: []BundleFile{{Path: "s"}}, Trial: spec.Trial{Variant: "v"}, Samples: -1}, `samples: want 0 or more`},
	} {
		if err := tt.b.check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error containing %q", tt.b, err, tt.want)
		}
	}
}
