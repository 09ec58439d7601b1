package main

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/load"
)

// TestRunPinsCPUs runs a spec with cpus: {load: FIRST}: latlab must run on
// that CPU alone, and every variant process — graph nodes, a start
// command, a setup command — on the others, as the process probe and the
// setup command's own /proc/self/status show.
func TestRunPinsCPUs(t *testing.T) {
	allowed, err := load.AllowedCPUs()
	if err != nil || len(allowed) < 2 {
		t.Skipf("needs two CPUs (have %v, %v)", allowed, err)
	}
	first, others := allowed[0], load.FormatCPUList(allowed[1:])
	bin := buildLatlab(t)
	dir := t.TempDir()
	writeIn(t, dir, "one.yaml", "services:\n  - name: one\n")
	addr := freeAddr(t)
	spec := writeIn(t, dir, "spec.yaml", fmt.Sprintf(`version: 1
name: pinned
variants:
  - {name: graph, graph: one.yaml}
  - name: started
    target: "http://%s/"
    setup: grep Cpus_allowed_list /proc/self/status > setup-cpus.txt
    start: sh -c 'grep Cpus_allowed_list /proc/self/status > start-cpus.txt; exec %s serve --name pinned-started --listen %s'
load: {mode: open, rates: [50], duration: 1500ms}
probes:
  process: {}
cpus: {load: %d}
`, addr, bin, addr, first))
	db := filepath.Join(dir, "results.db")

	plan, err := exec.Command(bin, "run", spec, "--dry-run").CombinedOutput()
	if err != nil || !strings.Contains(string(plan), fmt.Sprintf("cpus:     latlab on %d, what it starts on ", first)) {
		t.Errorf("the dry run does not show the pinning (%v):\n%s", err, plan)
	}
	if out, err := exec.Command(bin, "run", spec, "-o", db, "-q").CombinedOutput(); err != nil {
		t.Fatalf("latlab run: %v\n%s", err, out)
	}

	for _, name := range []string{"setup-cpus.txt", "start-cpus.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if _, got, _ := strings.Cut(string(b), ":"); err != nil || strings.TrimSpace(got) != others {
			t.Errorf("%s: the command ran on %q (%v), want %s", name, strings.TrimSpace(got), err, others)
		}
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT r.variant, json_extract(p.labels, '$.role'), json_extract(p.labels, '$.comm'), MIN(p.value), MAX(p.value)
		FROM probes p JOIN runs r ON r.id = p.run_id
		WHERE p.probe = 'process' AND p.series = 'cpus_allowed'
		GROUP BY 1, 2, 3`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var variant, role, comm string
		var lo, hi float64
		if err := rows.Scan(&variant, &role, &comm, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		want := float64(len(allowed) - 1)
		if role == "latlab" {
			want = 1
		}
		if lo != want || hi != want {
			t.Errorf("%s: %s process %s may run on %g to %g CPUs, want %g", variant, role, comm, lo, hi, want)
		}
		seen[variant+"/"+role] = true
	}
	for _, k := range []string{"graph/latlab", "graph/target", "started/latlab", "started/target"} {
		if !seen[k] {
			t.Errorf("no cpus_allowed points for %s (have %v)", k, seen)
		}
	}
}

// TestRunCPUsNotHere asks for a CPU this machine does not let latlab use:
// a usage error naming the spec's line and field, before any load.
func TestRunCPUsNotHere(t *testing.T) {
	allowed, err := load.AllowedCPUs()
	if err != nil {
		t.Skip(err)
	}
	missing := allowed[len(allowed)-1] + 1
	dir := t.TempDir()
	spec := writeIn(t, dir, "spec.yaml", fmt.Sprintf(`version: 1
name: nowhere
variants: [{name: a, target: "http://127.0.0.1:9/"}]
load: {mode: open, rates: [10], duration: 1s}
cpus:
  load: 0
  targets: %d
`, missing))
	code, stdout, stderr := runCLI(t, "run", spec, "-o", filepath.Join(dir, "r.db"))
	checkUsageError(t, code, stdout, stderr, fmt.Sprintf("spec.yaml:7: cpus.targets: CPU %d is not one latlab may use here", missing))
}
