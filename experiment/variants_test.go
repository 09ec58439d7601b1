package experiment

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/probe"
)

// A start command's children that take their time to end on SIGTERM are
// gone when stop returns, not left to the next trial.
func TestStopWaitsForGroup(t *testing.T) {
	dir := t.TempDir()
	armed := filepath.Join(dir, "armed")
	// The child traps SIGTERM and lingers 300 ms after it; the command
	// itself ends at once.
	start := `sh -c '(trap "sleep 0.3; exit 0" TERM; touch armed; while :; do sleep 0.02; done) & wait'`
	r := &Runner{Spec: &spec.Spec{Dir: dir}}
	l := &live{v: &spec.Variant{Name: "lingers", Start: start}}
	if err := r.start(l); err != nil {
		t.Fatal(err)
	}
	pgid := l.started.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(armed); err == nil {
			break
		}
		if time.Now().After(deadline) {
			l.stop()
			t.Fatal("the start command's child never set its trap")
		}
	}
	l.stop()
	if probe.GroupLive(pgid) {
		t.Error("a process of the start command's group still runs after stop")
	}
}

// A variant's commands are told where the trace receiver listens.
func TestCommandEnvTraces(t *testing.T) {
	dir := t.TempDir()
	r := &Runner{Spec: &spec.Spec{Dir: dir}, tracesURL: "http://127.0.0.1:4318", tracesGRPC: "127.0.0.1:4317"}
	if err := r.shell(context.Background(), `echo "$LATLAB_OTLP_HTTP $LATLAB_OTLP_GRPC" > env`); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "env")); err != nil || string(b) != "http://127.0.0.1:4318 127.0.0.1:4317\n" {
		t.Errorf("the command saw %q (%v)", b, err)
	}
	r = &Runner{Spec: &spec.Spec{Dir: dir}}
	if err := r.shell(context.Background(), `echo "${LATLAB_OTLP_GRPC-unset}" > env`); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "env")); string(b) != "unset\n" {
		t.Errorf("without traces the command saw LATLAB_OTLP_GRPC=%q", b)
	}
}
