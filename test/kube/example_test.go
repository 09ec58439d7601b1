package kube

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// TestAPFExample runs a small version of examples/kube-apiserver-apf.yaml
// with latlab run, its apf variant only: a real kube-apiserver, etcd and
// latlab's admission webhook started by the example's script, configured
// by its configure script, loaded by its scenario and scraped by its
// metrics probe and its traces. The APF filter's latency series is stored
// and not empty, its exact time is traced request by request,
// and the webhook's delay holds delay-adder's mutations (a third of them,
// as the users take the iterations in turn) and nobody's reads.
func TestAPFExample(t *testing.T) {
	bin := binaries(t)
	for _, tool := range []string{"curl", "openssl", "setpriv"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the example's scripts need %s", tool)
		}
	}
	dir := t.TempDir()
	latlab := filepath.Join(dir, "latlab")
	if out, err := exec.Command("go", "build", "-o", latlab, "../../cmd/latlab").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	examples := filepath.Join(dir, "examples")
	for _, f := range []string{"kube-apiserver-apf.yaml", "kube/apiserver.sh", "kube/configure.sh", "scenarios/kube-configmap-crud.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../examples", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(examples, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(examples, f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec := smallSpec(t, filepath.Join(examples, "kube-apiserver-apf.yaml"), freePorts(t, 4))

	db := filepath.Join(dir, "apf.db")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, latlab, "run", spec, "-o", db)
	cmd.Env = append(os.Environ(), "LATLAB="+latlab, "LATLAB_KUBE_BIN="+bin)
	out, err := cmd.CombinedOutput()
	logs := func() string {
		var b strings.Builder
		for _, name := range []string{"kube-apiserver", "etcd", "webhook"} {
			fmt.Fprintf(&b, "\n%s's log ends:\n%s", name, tail(filepath.Join(examples, "kube", "state"), name))
		}
		return b.String()
	}
	if err != nil {
		t.Fatalf("latlab run: %v\n%s%s", err, out, logs())
	}

	s, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exps, err := s.Experiments(context.Background())
	if err != nil || len(exps) != 1 {
		t.Fatalf("experiments %v, %v", exps, err)
	}
	runs, err := s.Runs(context.Background(), exps[0].ID)
	if err != nil || len(runs) != 1 || runs[0].Status != store.Done {
		t.Fatalf("runs %+v, %v; want one done\n%s", runs, err, out)
	}
	run := runs[0]

	points, err := s.Probes(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var filter, wait, gauges, traced int
	for _, p := range points {
		switch {
		case p.Series == "filter_seconds" && p.Labels["span"] == "priorityandfairness" && p.Value >= 0:
			traced++
		case p.Series == "apiserver_request_filter_duration_seconds:p99" && p.Labels["filter"] == "priorityandfairness" && p.Value > 0:
			filter++
		case p.Series == "apiserver_flowcontrol_request_wait_duration_seconds:p99":
			wait++
		case p.Series == "apiserver_flowcontrol_current_executing_seats":
			gauges++
		}
	}
	if filter == 0 || wait == 0 || gauges == 0 {
		t.Errorf("stored %d points of the APF filter's p99, %d of the queue wait's p99, %d of executing seats; want some of each", filter, wait, gauges)
	}
	// Every request is traced: about one APF filter time a request (spans
	// are kept by when they started, requests by when they were due).
	if n := run.Summary.Requests; traced < int(n)/2 || traced > int(n)+int(n)/5+50 {
		t.Errorf("%d traced APF filter times for %d requests; want about one each", traced, n)
	}

	// The scenario's steps: create, update, get, delete.
	var delayed, mutations, slowGets, gets int
	err = s.Samples(context.Background(), run.ID, func(r record.Raw) error {
		if r.Code < 200 || r.Code > 299 {
			return nil
		}
		held := r.Done-r.Sent >= time.Second
		if r.Step == 2 {
			gets++
			if held {
				slowGets++
			}
			return nil
		}
		mutations++
		if held {
			delayed++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A third of the iterations are delay-adder's; those under way at the
	// end, cut short, shift the share a little.
	if share := float64(delayed) / float64(mutations); mutations < 30 || share < 0.2 || share > 0.5 {
		t.Errorf("%d of %d successful mutations took 1 s or more (%.2f); want about a third, delay-adder's", delayed, mutations, share)
	}
	if gets == 0 || slowGets > gets/10 {
		t.Errorf("%d of %d reads took 1 s or more; the webhook holds none", slowGets, gets)
	}
}

// smallSpec writes beside file a copy of the example spec scaled down to
// minutes, with its apf variant only, on the ports given; it returns its
// path. A line it means to change that is not there fails the test: the
// example moved on, and this test with it.
func smallSpec(t *testing.T, file string, ports []int) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	cut := func(from, to string) {
		i, j := strings.Index(s, from), strings.Index(s, to)
		if i < 0 || j < i {
			t.Fatalf("%s: no %q before %q", file, from, to)
		}
		s = s[:i] + s[j:]
	}
	replace := func(old, new string) {
		if !strings.Contains(s, old) {
			t.Fatalf("%s: no %q", file, old)
		}
		s = strings.ReplaceAll(s, old, new)
	}
	cut("  - name: restricted", "baseline:")
	replace("concurrency: [600]", "concurrency: [9]")
	replace("ramp: {burst: 100, every: 5s}", "ramp: {burst: 3, every: 2s}")
	replace("duration: 85s", "duration: 15s")
	replace("window: 1m", "window: 10s")
	replace("runs: 6 ", "runs: 1 ")
	replace("16443", fmt.Sprint(ports[0]))
	small := filepath.Join(filepath.Dir(file), "small.yaml")
	if err := os.WriteFile(small, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return small
}

// freePorts returns n consecutive ports on 127.0.0.1 that nothing listens
// on now, below the ephemeral range.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	for range 100 {
		base := 20000 + rand.IntN(10000)
		var ports []int
		for p := base; p < base+n; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				break
			}
			ln.Close()
			ports = append(ports, p)
		}
		if len(ports) == n {
			return ports
		}
	}
	t.Fatal("no free ports")
	return nil
}
