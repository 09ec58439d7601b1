package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/latlab/latlab/store"
)

// processesWith lists live processes whose command line contains s.
func processesWith(s string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		var pid int
		fmt.Sscan(filepath.Base(d), &pid)
		if alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestRunSurvivesKill kills "latlab run" with SIGKILL at several moments:
// the database must open cleanly each time, no graph node may outlive it,
// and running the same command again must complete the plan with every
// trial exactly once.
func TestRunSurvivesKill(t *testing.T) {
	bin := buildLatlab(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer target.Close()
	dir := t.TempDir()
	graphFile := filepath.Join(dir, "killtest-graph.yaml")
	os.WriteFile(graphFile, []byte("services:\n  - name: front\n    script: [{call: back}]\n  - name: back\n"), 0o644)
	spec := filepath.Join(dir, "spec.yaml")
	addr := freeAddr(t)
	os.WriteFile(spec, []byte(fmt.Sprintf(`version: 1
name: kill
variants:
  - {name: graph, graph: killtest-graph.yaml}
  - {name: external, target: "%s/"}
  - {name: started, target: "http://%s/", start: "%s serve --name killtest-started --listen %s"}
load: {mode: open, rates: [50, 100], duration: 400ms}
runs: 2
`, target.URL, addr, bin, addr)), 0o644)
	db := filepath.Join(dir, "results.db")

	for _, after := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond, 2500 * time.Millisecond, 4 * time.Second} {
		cmd := exec.Command(bin, "run", spec, "-o", db, "-q")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		for _, mark := range []string{graphFile, "killtest-started"} {
			deadline := time.Now().Add(3 * time.Second)
			for len(processesWith(mark)) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if left := processesWith(mark); len(left) > 0 {
				t.Errorf("killed after %s: variant processes %v (%s) outlived latlab", after, left, mark)
				for _, p := range left {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
		}
		s, err := store.Open(context.Background(), db)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatalf("killed after %s: the database does not open: %v", after, err)
		}
		s.Close()
	}

	out, err := exec.Command(bin, "run", spec, "-o", db, "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("the last run failed: %v\n%s", err, out)
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var check string
	if err := conn.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check: %q, %v", check, err)
	}
	rows, err := conn.Query("SELECT variant, rate, rep, status FROM runs")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]int{}
	for rows.Next() {
		var variant, status string
		var rate float64
		var rep int
		if err := rows.Scan(&variant, &rate, &rep, &status); err != nil {
			t.Fatal(err)
		}
		if status != "done" {
			t.Errorf("%s %g rep %d is %s", variant, rate, rep, status)
		}
		seen[fmt.Sprintf("%s/%g/%d", variant, rate, rep)]++
	}
	if len(seen) != 12 {
		t.Errorf("%d distinct trials stored, want 12: %v", len(seen), seen)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("trial %s stored %d times", k, n)
		}
	}
}
