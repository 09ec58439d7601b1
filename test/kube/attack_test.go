package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// TestKubeAttack sends latlab attack --kubernetes from a pod of the test
// cluster to a Service there: the result comes back whole, as JSON and
// into a results database, after a warm-up and judged against an SLO;
// Ctrl-C stops the pod's load and prints what it measured; an image
// nobody has fails the attack with the reason, within the bound of a
// load pod's start. None of them leaves anything in the cluster.
func TestKubeAttack(t *testing.T) {
	tc := upCluster(t)
	ns := tc.namespace(t, "web")
	tc.startWeb(t, ns)
	url := "http://web." + ns + ".svc:8080/"
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	t.Run("whole", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "out.db")
		stdout, stderr, err := tc.attack(ctx, nil, url, "-n", "200", "-c", "4", "--warmup", "1s", "--slo", "errors<1%",
			"--namespace", ns, "--image", image, "-o", db, "--format", "json")
		if err != nil {
			t.Fatalf("latlab attack: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		var got report.AttackJSON
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("decoding the result: %v\n%s", err, stdout)
		}
		if got.Requests != 200 || got.StatusCodes["200"] != 200 || got.Interrupted || got.WarmupRequests == 0 || got.SLO == nil || !got.SLO.Met {
			t.Errorf("requests %d, codes %v, interrupted %v, warm-up %d, slo %+v; want 200 answered 200 after a warm-up, the SLO met",
				got.Requests, got.StatusCodes, got.Interrupted, got.WarmupRequests, got.SLO)
		}
		rs := runs(t, db)
		if len(rs) != 1 || rs[0].Status != store.Done || rs[0].Summary == nil || rs[0].Summary.Requests != 200 || rs[0].Variant != "attack" {
			t.Errorf("runs %+v, want one done of 200 requests", rs)
		}
		tc.nothingLeft(t)
	})

	t.Run("sharded", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "out.db")
		stdout, stderr, err := tc.attack(ctx, nil, url, "-r", "100", "-d", "2s", "--shards", "2",
			"--namespace", ns, "--image", image, "-o", db, "--format", "json")
		if err != nil {
			t.Fatalf("latlab attack --shards 2: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		var got report.AttackJSON
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("decoding the result: %v\n%s", err, stdout)
		}
		if got.Sent+got.Unsent != 200 || got.StatusCodes["200"] != got.Requests {
			t.Errorf("sent %d, unsent %d, codes %v; want the 200 due, answered 200", got.Sent, got.Unsent, got.StatusCodes)
		}
		rs := runs(t, db)
		if len(rs) != 1 {
			t.Fatalf("runs %+v; want one", rs)
		}
		shards := readRun(t, db, rs[0].ID, (*store.DB).Shards)
		if len(shards) != 2 || shards[0].Result == nil || shards[1].Result == nil ||
			shards[0].Result.Requests+shards[1].Result.Requests != got.Requests || shards[0].Node == "" {
			t.Errorf("%d shards; want 2 pods on nodes, their requests summing to the attack's %d", len(shards), got.Requests)
		}
		tc.nothingLeft(t)
	})

	t.Run("interrupted", func(t *testing.T) {
		// Ctrl-C once the live line shows requests of the measured load
		// done.
		measuring := make(chan struct{})
		var once sync.Once
		done := regexp.MustCompile(`  done [1-9]`)
		watch := func(b []byte) {
			if done.Match(b) {
				once.Do(func() { close(measuring) })
			}
		}
		stdout, stderr, err := tc.attack(ctx, &interrupt{watch: watch, when: measuring}, url, "-r", "20", "-d", "5m",
			"--namespace", ns, "--image", image, "--format", "json", "--progress")
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Fatalf("latlab attack after Ctrl-C: %v, want exit 130\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		var got report.AttackJSON
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("decoding the result: %v\n%s", err, stdout)
		}
		if !got.Interrupted || got.Requests == 0 || got.StatusCodes["200"] != got.Requests {
			t.Errorf("interrupted %v, requests %d, codes %v; want the requests sent before Ctrl-C, answered 200", got.Interrupted, got.Requests, got.StatusCodes)
		}
		if left := tc.labelled(t); left != "" {
			t.Errorf("left in the cluster after Ctrl-C:\n%s", left)
		}
	})

	t.Run("unknown image", func(t *testing.T) {
		start := time.Now()
		stdout, stderr, err := tc.attack(ctx, nil, url, "-n", "10", "--image", "example.invalid/none:1")
		took := time.Since(start)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("latlab attack of an image nobody has: %v, want exit 1\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		for _, want := range []string{"--image example.invalid/none:1: load pod latlab-load-attack-1-", ": image: ", "ImagePull"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if stdout != "" {
			t.Errorf("stdout %q, want nothing", stdout)
		}
		// The load pod's bound of 2 minutes, then its deletion; not much more.
		if took > 2*time.Minute+2*time.Minute {
			t.Errorf("latlab attack took %s to give up on an image nobody has", took)
		}
		tc.nothingLeft(t)
	})
}

// interrupt sends SIGINT to an attack once when is closed; watch sees
// what the attack writes to stderr as it writes it.
type interrupt struct {
	watch func([]byte)
	when  <-chan struct{}
}

// watcher is a stderr that shows each write to watch.
type watcher struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	watch func([]byte)
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	w.watch(w.buf.Bytes())
	return len(p), nil
}

// attack runs latlab attack --kubernetes on tc with args and returns its
// stdout, its stderr and its exit error; with in, it sends SIGINT as in
// says.
func (c *testCluster) attack(ctx context.Context, in *interrupt, args ...string) (string, string, error) {
	bin, err := latlabBinary()
	if err != nil {
		return "", "", err
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"attack", "--kubernetes", "--kubeconfig", filepath.Join(c.dir, "kubeconfig")}, args...)...)
	var stdout bytes.Buffer
	stderr := &watcher{watch: func([]byte) {}}
	if in != nil {
		stderr.watch = in.watch
	}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	done := make(chan struct{})
	defer close(done)
	if in != nil {
		go func() {
			select {
			case <-in.when:
				_ = cmd.Process.Signal(syscall.SIGINT)
			case <-done:
			}
		}()
	}
	err = cmd.Wait()
	stderr.mu.Lock()
	defer stderr.mu.Unlock()
	return stdout.String(), stderr.buf.String(), err
}
