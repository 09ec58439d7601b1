package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedSpec is a spec of three variants on target, twice each: six trials
// in an interleaved order, a shuffle per repetition.
func seedSpec(target, seed string) string {
	s := fmt.Sprintf(`version: 1
name: seeded
variants:
  - {name: alpha, target: "%[1]s/"}
  - {name: beta, target: "%[1]s/"}
  - {name: gamma, target: "%[1]s/"}
load: {mode: closed, concurrency: [2], requests: 10}
validity: {max_trend: 10000%%, max_lag_p99: 10s}
runs: 2
`, target)
	if seed != "" {
		s += "seed: " + seed + "\n"
	}
	return s
}

var (
	planRow  = regexp.MustCompile(`(?m)^(\d+)\s+(alpha|beta|gamma)\s+\S+\s+(\d+)\s`)
	seedLine = regexp.MustCompile(`(?m)^seed:\s+(-?\d+) \((.*)\)$`)
)

// dryRun runs latlab run --dry-run, which must succeed, and returns the
// seed and the trials it prints, as "position variant rep".
func dryRun(t *testing.T, args ...string) (seed int64, from string, order []string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"run", "--dry-run"}, args...)...)
	if code != exitOK {
		t.Fatalf("latlab run --dry-run %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
	}
	m := seedLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("the dry run prints no seed:\n%s", stdout)
	}
	seed, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range planRow.FindAllStringSubmatch(stdout, -1) {
		order = append(order, row[1]+" "+row[2]+" "+row[3])
	}
	return seed, m[2], order
}

// storedOrder returns the done runs in db, as "position variant rep" in
// plan order, and the seed in the provenance of its one experiment.
func storedOrder(t *testing.T, db string) (seed int64, order []string) {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRow(`SELECT json_extract(provenance, '$.seed') FROM experiments`).Scan(&seed); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(`SELECT position, variant, rep FROM runs WHERE status = 'done' ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var pos, rep int
		var variant string
		if err := rows.Scan(&pos, &variant, &rep); err != nil {
			t.Fatal(err)
		}
		order = append(order, fmt.Sprintf("%d %s %d", pos, variant, rep))
	}
	return seed, order
}

// TestRunDryRunSeed holds the dry run to the order latlab run runs: with
// no seed: in the spec the dry run prints the seed it drew, run --seed
// with it runs exactly the order printed, and a resumed experiment keeps
// its stored seed, whose remaining trials its dry run shows.
func TestRunDryRunSeed(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	spec := writeIn(t, dir, "spec.yaml", seedSpec(srv.URL, ""))
	db := filepath.Join(dir, "results.db")

	seed, from, printed := dryRun(t, spec, "-o", db)
	if !strings.Contains(from, fmt.Sprintf("--seed %d", seed)) {
		t.Errorf("the dry run says %q of its seed, not how to run that order (--seed %d)", from, seed)
	}
	if len(printed) != 6 {
		t.Fatalf("the dry run prints %d trials, want 6: %q", len(printed), printed)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the dry run made %s (%v)", db, err)
	}

	code, _, stderr := runCLI(t, "run", spec, "-o", db, "-q", "--seed", strconv.FormatInt(seed, 10))
	if code != exitOK {
		t.Fatalf("latlab run --seed %d: exit %d, stderr %q", seed, code, stderr)
	}
	stored, ran := storedOrder(t, db)
	if stored != seed {
		t.Errorf("stored seed %d, want %d", stored, seed)
	}
	if diff := cmp.Diff(printed, ran); diff != "" {
		t.Fatalf("run --seed %d ran another order than its dry run printed (-printed +ran):\n%s", seed, diff)
	}

	// Trials 4 to 6 failed: resuming runs them again, in the stored order.
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`UPDATE runs SET status = 'failed' WHERE position > 3`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	code, stdout, _ := runCLI(t, "run", "--dry-run", spec, "-o", db)
	if !strings.Contains(stdout, "resume:   experiment 1: 3 of 6 trials done, the 3 left above") {
		t.Errorf("the resumed experiment's dry run does not say what is done (exit %d):\n%s", code, stdout)
	}
	again, from, left := dryRun(t, spec, "-o", db)
	if again != seed || !strings.Contains(from, "stored with experiment 1") {
		t.Errorf("the resumed experiment's dry run shows seed %d (%s), want the stored %d", again, from, seed)
	}
	if diff := cmp.Diff(printed[3:], left); diff != "" {
		t.Errorf("the resumed experiment's dry run shows other trials than the three left (-want +got):\n%s", diff)
	}

	other := strconv.FormatInt(seed+1, 10)
	code, _, stderr = runCLI(t, "run", spec, "-o", db, "-q", "--seed", other)
	if code != exitUsage || !strings.Contains(stderr, "--seed "+other) || !strings.Contains(stderr, strconv.FormatInt(seed, 10)) {
		t.Errorf("resuming with another --seed: exit %d, stderr %q; want %d naming both seeds", code, stderr, exitUsage)
	}
	code, stdout, stderr = runCLI(t, "run", spec, "-o", db, "-q")
	if code != exitOK || !strings.Contains(stdout, "3 done before, 3 done now") {
		t.Fatalf("resuming: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stored, ran = storedOrder(t, db); stored != seed {
		t.Errorf("after resuming, stored seed %d, want %d", stored, seed)
	}
	if diff := cmp.Diff(printed, ran); diff != "" {
		t.Errorf("resuming ran another order than the first dry run printed (-printed +ran):\n%s", diff)
	}

	// Raised runs go on with the experiment: the dry run shows the new
	// repetition alone, and the run runs it after the stored ones.
	writeIn(t, dir, "spec.yaml", strings.Replace(seedSpec(srv.URL, ""), "runs: 2", "runs: 3", 1))
	code, stdout, stderr = runCLI(t, "run", "--dry-run", spec, "-o", db)
	if code != exitOK || !strings.Contains(stdout, "resume:   experiment 1: 6 of 9 trials done, the 3 left above") ||
		!strings.Contains(stdout, "raised:   runs: 2 → 3:") || strings.Contains(stdout, "refused") {
		t.Errorf("dry run of raised runs: exit %d, stderr %q, stdout:\n%s\nwant experiment 1 raised, 3 trials left", code, stderr, stdout)
	}
	_, _, added := dryRun(t, spec, "-o", db)
	code, stdout, stderr = runCLI(t, "run", spec, "-o", db, "-q")
	if code != exitOK || !strings.Contains(stdout, "runs: 2 → 3: experiment 1 goes on") || !strings.Contains(stdout, "6 done before, 3 done now") {
		t.Fatalf("raised runs: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, ran = storedOrder(t, db); !cmp.Equal(ran, append(printed, added...)) {
		t.Errorf("raised runs ran %v; want the stored %v, then the dry run's %v", ran, printed, added)
	}

	// Another change is a new experiment, which run refuses without --new.
	writeIn(t, dir, "spec.yaml", strings.Replace(seedSpec(srv.URL, ""), "concurrency: [2]", "concurrency: [2, 4]", 1))
	code, stdout, stderr = runCLI(t, "run", "--dry-run", spec, "-o", db)
	if code != exitOK || !strings.Contains(stdout, "refused:  without --new") || !strings.Contains(stdout, "drawn at random") {
		t.Errorf("dry run of a changed spec: exit %d, stderr %q, stdout:\n%s\nwant a new plan and the refusal", code, stderr, stdout)
	}
	if _, from, order := dryRun(t, spec, "-o", db, "--new"); !strings.Contains(from, "drawn at random") || len(order) != 12 {
		t.Errorf("dry run of a changed spec with --new: seed %s, %d trials; want a drawn seed and 12", from, len(order))
	}
}

// TestRunSeedFlag checks --seed against the spec's seed: they must agree.
func TestRunSeedFlag(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	spec := writeIn(t, dir, "spec.yaml", seedSpec(srv.URL, "5"))

	code, _, stderr := runCLI(t, "run", spec, "--dry-run", "-o", filepath.Join(dir, "results.db"), "--seed", "6")
	if code != exitUsage || !strings.Contains(stderr, "--seed 6") || !strings.Contains(stderr, "seed: 5") || !strings.Contains(stderr, spec) {
		t.Errorf("--seed 6 against seed: 5: exit %d, stderr %q; want %d naming both and the spec", code, stderr, exitUsage)
	}
	code, _, stderr = runCLI(t, "run", spec, "--dry-run", "--seed", "x")
	if code != exitUsage || !strings.Contains(stderr, "--seed") {
		t.Errorf("--seed x: exit %d, stderr %q; want %d naming the flag", code, stderr, exitUsage)
	}
	seed, from, _ := dryRun(t, spec, "-o", filepath.Join(dir, "results.db"), "--seed", "5")
	if seed != 5 || from != "the spec's seed:" {
		t.Errorf("--seed 5 with seed: 5: the dry run shows seed %d (%s), want 5 (the spec's seed:)", seed, from)
	}
}
