package main

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestReportLsDamagedRow: with one run's summary damaged in its results
// database, latlab report and latlab ls still answer, leave the run out
// and say so, naming the table, the run and what is wrong: report on
// stderr and in its warnings, ls under its table.
func TestReportLsDamagedRow(t *testing.T) {
	path := lsDB(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE runs SET summary = '{"requests": oops' WHERE experiment_id = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	why := "table runs, run 1 (attack rate=0/s c=2 rep=1): summary: invalid character 'o' looking for beginning of value"

	code, stdout, stderr := runCLI(t, "report", path, "--experiment", "1")
	if code != exitOK {
		t.Fatalf("latlab report: exit %d, stderr:\n%s", code, stderr)
	}
	if want := fmt.Sprintf("latlab: warning: %s: %s: left out\n", path, why); !strings.Contains(stderr, want) {
		t.Errorf("latlab report: stderr lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, "warning: attack c=2: 1 run(s) left out, their stored data missing or inconsistent: run 1 (rep 1, done): table runs: summary: invalid character") {
		t.Errorf("latlab report: its warnings do not name the damaged run:\n%s", stdout)
	}

	code, stdout, stderr = runCLI(t, "ls", path)
	if code != exitOK {
		t.Fatalf("latlab ls: exit %d, stderr:\n%s", code, stderr)
	}
	if want := "warning: run 1: damaged row: " + why; !strings.Contains(stdout, want) || !strings.Contains(stdout, "experiment 2") {
		t.Errorf("latlab ls: want both experiments and %q:\n%s", want, stdout)
	}
}
