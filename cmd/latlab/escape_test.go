package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/textsafe"
)

// TestTextEscapesControls: an experiment and a variant whose names in a
// results database hold control characters are escaped wherever latlab
// prints them as text: ls, report and the error naming the experiments.
func TestTextEscapesControls(t *testing.T) {
	path := lsDB(t)
	const hostile = `('v' || char(27) || ']0;owned' || char(7) || char(10) || 'x' || char(9) || char(155) || '[2J' || char(127) || CAST(x'9b' AS TEXT))`
	const escaped = `v\x1b]0;owned\a\nx\t\u009b[2J\x7f\x9b`
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`UPDATE experiments SET name = ` + hostile,
		`UPDATE runs SET variant = ` + hostile,
		`UPDATE runs SET flags = json_array(json_object('flag', 'errors', 'reason', ` + hostile + `))`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	for _, args := range [][]string{
		{"ls", path},
		{"report", path},
		{"report", path, "--experiment", "none such"},
	} {
		_, stdout, stderr := runCLI(t, args...)
		for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if c, i := textsafe.Unsafe(out); i >= 0 {
				t.Errorf("latlab %s: %s holds %q at byte %d:\n%s", strings.Join(args, " "), name, c, i, out)
			}
		}
		if !strings.Contains(stdout+stderr, escaped) {
			t.Errorf("latlab %s prints no %s:\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), escaped, stdout, stderr)
		}
	}
}
