package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDryRunCommands: the dry run lists every command a spec runs, with
// its variant and when it runs: a target's setup, start, configure and
// teardown; a graph's nodes and the commands and stress-ng jobs of their
// fork and stress steps; manifests a cluster runs. A command's newlines
// and control characters are escaped, so that what is shown is what runs.
func TestDryRunCommands(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"graph.yaml": `services:
  - name: front
    commands: {date: [date], greet: [sh, -c, "echo 'hi there'"]}
    jobs: {light: light.job}
    load_job: light
    script: [{fork: date}, {call: back}]
  - name: back
`,
		"light.job": "run sequential\ncpu 1\ntimeout 1s\n",
		"web.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parse := func(spec string) *Spec {
		t.Helper()
		s, err := ParseSpec("spec.yaml", []byte(spec), dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	local := parse(`version: 1
name: cmds
variants:
  - name: proxy
    target: http://127.0.0.1:19000/
    setup: "echo setting up; touch ready"
    start: latlab serve --listen 127.0.0.1:19000
    configure: "curl -X PUT http://127.0.0.1:19000/objects/x\necho \e]0;title\a"
    teardown: rm -f ready
  - {name: chain, graph: graph.yaml}
load: {rates: [100], duration: 1s}
restart: per-run
`)
	cluster := parse(`version: 1
name: pods
kubernetes: {namespace: bench, image: example.com/latlab:1}
variants:
  - {name: pods, graph: graph.yaml, on: kubernetes}
  - name: web
    target: http://web.bench.svc/
    kubernetes: {manifests: web.yaml, namespace: web}
load: {rates: [100], duration: 1s, on: kubernetes}
`)
	job := filepath.Join(dir, "light.job")
	greet := `sh -c 'echo '\''hi there'\'''`
	want := []Command{
		{"proxy", "setup", "echo setting up; touch ready"},
		{"proxy", "start", "latlab serve --listen 127.0.0.1:19000"},
		{"proxy", "configure", "curl -X PUT http://127.0.0.1:19000/objects/x\necho \x1b]0;title\a"},
		{"proxy", "teardown", "rm -f ready"},
		{"chain", "graph", "latlab serve, a process for each service of graph.yaml: front, back"},
		{"chain", "fork front/date", "date"},
		{"chain", "fork front/greet", greet},
		{"chain", "stress front/light", "stress-ng --job " + job},
	}
	if diff := cmp.Diff(want, local.Commands()); diff != "" {
		t.Errorf("Commands (-want +got):\n%s", diff)
	}
	want = []Command{
		{"pods", "graph", "latlab serve, a pod of example.com/latlab:1 on the cluster for each service of graph.yaml: front, back"},
		{"pods", "fork front/date", "date"},
		{"pods", "fork front/greet", greet},
		{"pods", "stress front/light", "stress-ng --job " + job},
		{"web", "manifests", "web.yaml applied to the cluster: what it deploys runs there"},
	}
	if diff := cmp.Diff(want, cluster.Commands()); diff != "" {
		t.Errorf("Commands on a cluster (-want +got):\n%s", diff)
	}

	var b strings.Builder
	if err := local.WritePlan(&b, local.Plan(1)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range []string{
		"commands: a spec is code, as a Makefile is: latlab runs these with your privileges; shell commands\n" +
			"with sh -c in " + dir + "; each trial sets its variant up and tears it down\n",
		"  proxy    setup               echo setting up; touch ready\n",
		"  proxy    start               latlab serve --listen 127.0.0.1:19000\n",
		`  proxy    configure           curl -X PUT http://127.0.0.1:19000/objects/x\necho \x1b]0;title\a` + "\n",
		"  proxy    teardown            rm -f ready\n",
		"  chain    graph               latlab serve, a process for each service of graph.yaml: front, back\n",
		"  chain    fork front/date     date\n",
		"  chain    fork front/greet    " + greet + "\n",
		"  chain    stress front/light  stress-ng --job " + job + "\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("the dry run lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("the dry run prints a raw ESC:\n%q", out)
	}
}
