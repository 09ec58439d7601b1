package report_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/report"
)

// hostileSQL is a name as SQL that sets the terminal's title, breaks the
// line, moves to a column and clears the screen twice over (C1 and a raw
// byte), with a DEL.
const hostileSQL = `('v' || char(27) || ']0;owned' || char(7) || char(10) || 'x' || char(9) || char(155) || '[2J' || char(127) || CAST(x'9b' AS TEXT))`

// hostileEscaped is hostileSQL as a text output prints it.
const hostileEscaped = `v\x1b]0;owned\a\nx\t\u009b[2J\x7f\x9b`

// checkSafe fails t when text holds a character a terminal could take as
// a control, newlines and tabs but excepted.
func checkSafe(t *testing.T, what, text string) {
	t.Helper()
	if c, i := textsafe.Unsafe(text); i >= 0 {
		t.Errorf("%s holds %q at byte %d:\n%q", what, c, i, text[max(0, i-60):min(len(text), i+60)])
	}
}

// TestReportEscapesControls: names, flags and provenance from a results
// database that hold control characters are escaped in the text report,
// newlines and tabs in them too, and kept as they are in JSON.
func TestReportEscapesControls(t *testing.T) {
	path, _ := damaged(t,
		`UPDATE experiments SET name = `+hostileSQL,
		`UPDATE experiments SET provenance = json_set(provenance, '$.host', `+hostileSQL+`)`,
		`UPDATE runs SET variant = `+hostileSQL+` WHERE variant = 'a'`,
		`UPDATE runs SET flags = json_array(json_object('flag', `+hostileSQL+`, 'reason', `+hostileSQL+`)) WHERE variant = 'b' AND rep = 1`,
	)
	_, text, j, _ := storedForms(t, path)
	checkSafe(t, "the text report", text)
	for _, want := range []string{"Experiment  " + hostileEscaped + ", id 1", "\n" + hostileEscaped + "  50/s", "warning: " + hostileEscaped + " 50/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(j.Experiment.Name, "\x1b]0;owned\a\n") {
		t.Errorf("JSON experiment name %q, want it as stored", j.Experiment.Name)
	}
}

// TestAttackEscapesControls: an attack's text escapes its target, a
// server's error and a scenario step's name.
func TestAttackEscapesControls(t *testing.T) {
	hostile := "v\x1b]0;owned\a\nx\t\u009b[2J\x7f\x9b"
	r := record.NewRecorder(time.Now(), record.Config{})
	for i := range 20 {
		r.Sent()
		r.Record(i, &record.Sample{Sent: time.Millisecond, Done: 2 * time.Millisecond, Error: record.Protocol, Err: errors.New("bad status line " + hostile)})
	}
	res := r.Stop()
	res.Mode, res.Concurrency = "closed", 2
	res.StepStats = []record.StepStats{{Name: hostile, Requests: 20, Latency: record.NewHistogram(), Service: record.NewHistogram()}}
	var b bytes.Buffer
	if err := report.Attack(&b, res, "GET http://127.0.0.1/"+hostile); err != nil {
		t.Fatal(err)
	}
	checkSafe(t, "the attack's text", b.String())
	if !strings.Contains(b.String(), "bad status line "+hostileEscaped) {
		t.Errorf("the attack's text lacks the error escaped:\n%s", b.String())
	}
}
