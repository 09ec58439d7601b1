package experiment

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/remote/remotetest"
	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/record"
)

func TestProgressString(t *testing.T) {
	snap := record.Progress{Elapsed: 5200 * time.Millisecond, Rate: 99.5, P99: 1234 * time.Microsecond, P99OK: true, Failed: 2}
	tests := []struct {
		name string
		p    Progress
		want string
	}{
		{"open, length known", Progress{Progress: snap, Trial: spec.Trial{Position: 3, Variant: "plain", Level: record.Level{Rate: 2.5}, Rep: 1}, Trials: 12, ToGo: 9,
			Length: 30 * time.Second, AllDone: 5*time.Minute + 400*time.Millisecond},
			"trial 3 of 12 (9 to go, all done in about 5m0s): plain 2.5/s rep 1, 25s left, rate 99.50/s, p99 1.234ms, failed 2"},
		{"closed, length unknown, no p99 yet", Progress{Progress: record.Progress{Rate: 1500}, Trial: spec.Trial{Position: 1, Variant: "proxy", Level: record.Level{Concurrency: 8}, Rep: 2}, Trials: 1},
			"trial 1 of 1 (0 to go): proxy c=8 rep 2, rate 1500/s, p99 n/a, failed 0"},
		{"past its length", Progress{Progress: record.Progress{Elapsed: 31 * time.Second}, Trial: spec.Trial{Position: 2, Variant: "v", Level: record.Level{Rate: 100}, Rep: 1}, Trials: 2,
			Length: 30 * time.Second},
			"trial 2 of 2 (0 to go, all done in about 0s): v 100/s rep 1, 0s left, rate 0.00/s, p99 n/a, failed 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// events records, in order, what a Runner does with its progress line and
// its trial lines.
type events struct {
	mu  sync.Mutex
	log []string
	got []Progress
}

func (e *events) add(s string) { e.mu.Lock(); e.log = append(e.log, s); e.mu.Unlock() }
func (e *events) Show(p Progress) {
	e.mu.Lock()
	e.log, e.got = append(e.log, "show"), append(e.got, p)
	e.mu.Unlock()
}
func (e *events) Clear() { e.add("clear") }

// trialLines is a Trials writer that records each line as an event.
type trialLines struct{ e *events }

func (w trialLines) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		w.e.add("line " + l)
	}
	return len(b), nil
}

// TestRunnerProgress checks what the runner hands its progress line: the
// trial under way with its place in the plan, the line cleared when a
// trial's load ends and before each line about a finished trial, so a
// terminal never shows a status and a trial line run together.
func TestRunnerProgress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	spec := remotetest.WriteSpec(t, dir, fmt.Sprintf(`version: 1
name: progress
variants: [{name: only, target: "%s/"}]
load: {mode: open, rates: [100], duration: 1500ms}
runs: 2
`, srv.URL))
	e := &events{}
	out, err := (&Runner{Spec: spec, DB: openDB(t, filepath.Join(dir, "results.db")), Progress: e, Trials: trialLines{e}}).Run(context.Background())
	if err != nil || out.Done != 2 {
		t.Fatalf("outcome %+v, %v; want 2 done", out, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t.Logf("%q", e.log)
	if len(e.got) == 0 {
		t.Fatal("no progress shown in two trials of 1.5s, a tick a second")
	}
	for _, p := range e.got {
		if p.Trials != 2 || p.Trial.Variant != "only" || p.Trial.Rate != 100 || p.ToGo != 2-p.Trial.Position ||
			p.Length != 1500*time.Millisecond || p.Elapsed < 0 || p.AllDone < 0 {
			t.Errorf("shown %+v, want a trial of the plan of 2, its place and length", p)
		}
	}
	lines := 0
	for i, ev := range e.log {
		if !strings.HasPrefix(ev, "line ") {
			continue
		}
		lines++
		if i == 0 || e.log[i-1] != "clear" {
			t.Errorf("event %d, %q, follows %q, want the line cleared first", i, ev, e.log[max(i-1, 0)])
		}
		if want := "line trial " + strconv.Itoa(lines) + ": only 100/s rep "; !strings.HasPrefix(ev, want) {
			t.Errorf("event %d is %q, want it to start %q", i, ev, want)
		}
	}
	if lines != 2 || e.log[len(e.log)-1] == "show" {
		t.Errorf("%d trial lines, last event %q; want 2, and the status line cleared at the end", lines, e.log[len(e.log)-1])
	}
}

// TestNoReport holds experiment below report in the layering: the runner
// hands its progress to a line it is given instead of drawing it.
func TestNoReport(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/latlab/latlab/report" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
