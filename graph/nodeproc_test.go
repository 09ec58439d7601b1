package graph

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nodeProcEnv makes this test binary serve one node instead of running
// tests: NAME, or NAME=DOWNSTREAM_URL. It prints the node's address on
// its first line of output and serves until SIGTERM. A node named
// "minimal" is the least a Go server can do in its place: a plain
// net/http handler that calls the downstream with one shared client.
const nodeProcEnv = "LATLAB_GRAPH_TEST_NODE"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ReapCommand {
		os.Exit(Reap(os.Args[2:])) // this test binary as latlab's reaper
	}
	if len(os.Args) > 1 && os.Args[1] == reapParent {
		os.Exit(parentOfReaper(os.Args[2:]))
	}
	if spec, ok := os.LookupEnv(nodeProcEnv); ok {
		if err := serveNodeProc(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveNodeProc(spec string) error {
	name, down, _ := strings.Cut(spec, "=")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if name == "minimal" {
		srv := &http.Server{Handler: minimalHandler(down)}
		go func() { <-ctx.Done(); srv.Close() }()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
	cfg := NodeConfig{Name: name}
	if down != "" {
		cfg.Downstreams = []string{down}
	}
	n, err := NewNode(cfg)
	if err != nil {
		return err
	}
	return n.Serve(ctx, ln)
}

// minimalHandler answers a line and, with a downstream, what the
// downstream answered to the same path.
func minimalHandler(down string) http.Handler {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if down != "" {
			resp, err := client.Get(down + r.URL.RequestURI())
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		_, _ = w.Write(append([]byte("minimal "+r.URL.Path+"\n"), body...))
	})
}

// A nodeProc is a node served by a process of its own, as latlab graph
// runs them.
type nodeProc struct {
	url string
	pid int
}

// startNodeProc starts a node named name forwarding to down (none if "")
// in a child process, stopped at the end of the benchmark.
func startNodeProc(b *testing.B, name, down string) nodeProc {
	b.Helper()
	spec := name
	if down != "" {
		spec += "=" + down
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), nodeProcEnv+"="+spec)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("node %s: reading its address: %v", name, err)
	}
	return nodeProc{url: "http://" + strings.TrimSpace(line), pid: cmd.Process.Pid}
}

// procUsage is what a process's threads have spent so far: CPU time and
// context switches, from /proc.
func procUsage(pid int) (cpu time.Duration, ctxsw int64, err error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil || len(tasks) == 0 {
		return 0, 0, fmt.Errorf("process %d: no tasks in /proc (%v)", pid, err)
	}
	for _, t := range tasks {
		sched, err := os.ReadFile(filepath.Join(t, "schedstat"))
		if err != nil {
			continue // the thread has ended
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(sched))[0], 10, 64)
		cpu += time.Duration(ns)
		status, err := os.ReadFile(filepath.Join(t, "status"))
		if err != nil {
			continue
		}
		for l := range strings.SplitSeq(string(status), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				ctxsw += n
			}
		}
	}
	return cpu, ctxsw, nil
}

// BenchmarkHopProcesses is one request at a time through a chain of two
// servers, each in a process of its own as latlab graph runs them: client
// → root → leaf over loopback; node: two latlab nodes, minimal: two plain
// net/http servers (minimalHandler), the floor to measure a node against.
// Besides the wall time per request it reports what the two servers
// spent per request: CPU time of all their threads (srv-cpu-ns/op) and
// context switches (srv-ctxsw/op), each a thread of theirs that slept or
// was woken.
func BenchmarkHopProcesses(b *testing.B) {
	for _, kind := range []string{"minimal", "node"} {
		b.Run(kind, func(b *testing.B) { benchHopProcesses(b, kind) })
	}
}

func benchHopProcesses(b *testing.B, kind string) {
	leafName, rootName := "leaf", "root"
	if kind == "minimal" {
		leafName, rootName = kind, kind
	}
	leaf := startNodeProc(b, leafName, "")
	root := startNodeProc(b, rootName, leaf.url)
	client := &http.Client{Transport: newTransport()}
	get := func() {
		resp, err := client.Get(root.url + "/")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	for range 100 { // connections open, code paths warm
		get()
	}
	usage := func() (time.Duration, int64) {
		var cpu time.Duration
		var ctxsw int64
		for _, p := range []nodeProc{leaf, root} {
			c, s, err := procUsage(p.pid)
			if err != nil {
				b.Fatal(err)
			}
			cpu, ctxsw = cpu+c, ctxsw+s
		}
		return cpu, ctxsw
	}
	cpu0, sw0 := usage()
	b.ReportAllocs()
	for b.Loop() {
		get()
	}
	cpu1, sw1 := usage()
	b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "srv-cpu-ns/op")
	b.ReportMetric(float64(sw1-sw0)/float64(b.N), "srv-ctxsw/op")
}
