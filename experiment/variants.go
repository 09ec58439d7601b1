package experiment

import (
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
)

// live is a variant that is set up: a running graph or an external target.
type live struct {
	v       *spec.Variant
	cluster *graph.Cluster // graph variants
	entry   string         // the URL requests go to; "" for a target variant (its own URL)
	nodes   map[string]string
	pids    []int
	names   map[int]string // of pids: a graph node's service, a start command's variant
	level   record.Level   // the level it was set up for, for restart: per-rate
	started *exec.Cmd      // the variant's start command, running
	exited  chan struct{}  // closed when it ends

	set       *cluster.Set // what was applied to the cluster, for a variant there
	namespace string       // where, and the selector of its objects and pods
	selector  string
}

// watch adds pid, named name, to the processes the process probe watches.
func (l *live) watch(pid int, name string) {
	if l.names == nil {
		l.names = map[int]string{}
	}
	l.pids, l.names[pid] = append(l.pids, pid), name
}

// metricsURLs returns the /metrics endpoints of a graph's nodes.
func (l *live) metricsURLs() []string {
	var urls []string
	for _, u := range l.nodes {
		urls = append(urls, u+"/metrics")
	}
	return urls
}

// setUp starts v: runs its setup command, then launches its graph, or runs
// its start command and waits for its ready URL; then runs its configure
// command. A variant on a cluster is deployed there after its setup
// command.
func (r *Runner) setUp(ctx context.Context, v *spec.Variant, t spec.Trial) (*live, error) {
	l := &live{v: v, level: t.Level, nodes: map[string]string{}}
	// The setup comes first, whatever the variant: before its graph's
	// nodes, its start command or its deployment.
	if v.Setup != "" {
		if err := r.shell(ctx, v.Setup); err != nil {
			return nil, fmt.Errorf("variant %s: setup %q: %w", v.Name, v.Setup, err)
		}
	}
	if v.InCluster() {
		if err := r.setUpKube(ctx, l); err != nil {
			return nil, err
		}
		return r.configure(ctx, l)
	}
	if v.Topology != nil {
		opts := graph.LaunchOptions{Binary: r.Binary, Output: r.NodeOutput, Ready: v.ReadyTimeout, CPUs: r.targetCPUs}
		if r.traces != nil {
			opts.Args = append(opts.Args, "--otlp-endpoint", r.tracesURL)
			// Export spans every 200 ms rather than 5 s, so that a trial's
			// spans are in by the time its hops are read.
			opts.Env = append(opts.Env, "OTEL_BSP_SCHEDULE_DELAY=200")
		}
		if r.Spec.Probes.Pprof != nil {
			opts.Args = append(opts.Args, "--pprof")
		}
		c, err := graph.Launch(ctx, v.Topology, opts)
		if err != nil {
			r.tearDown(l) // its teardown undoes its setup
			return nil, fmt.Errorf("variant %s: starting %s: %w", v.Name, v.Graph, err)
		}
		l.cluster, l.entry = c, c.Entry
		for _, n := range c.Nodes {
			l.nodes[n.Name] = n.URL
			l.watch(n.PID, n.Name)
		}
		return r.configure(ctx, l)
	}
	if v.Start != "" {
		if addr := listening(cmp.Or(v.Ready, v.Target)); addr != "" {
			return nil, fmt.Errorf("variant %s: %s already accepts connections before its start command ran: a server an earlier run left, or another program, would be measured in its place; stop it first", v.Name, addr)
		}
		if err := r.start(l); err != nil {
			r.tearDown(l)
			return nil, fmt.Errorf("variant %s: start %q: %w", v.Name, v.Start, err)
		}
	}
	ready, anyAnswer := v.Ready, false
	if ready == "" && v.Start != "" {
		ready, anyAnswer = v.Target, true // started here: wait until it answers at all
	}
	if ready != "" {
		if err := waitReady(ctx, ready, v.ReadyTimeout, anyAnswer, l.exited, v.Load.Settings().TLSFiles()); err != nil {
			r.tearDown(l)
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
	}
	return r.configure(ctx, l)
}

// configure runs the variant's configure command, now that it is ready,
// and returns l; when the command fails, it tears l down.
func (r *Runner) configure(ctx context.Context, l *live) (*live, error) {
	if l.v.Configure == "" {
		return l, nil
	}
	if err := r.shell(ctx, l.v.Configure); err != nil {
		r.tearDown(l)
		return nil, fmt.Errorf("variant %s: configure %q: %w", l.v.Name, l.v.Configure, err)
	}
	return l, nil
}

// start runs the variant's start command in its own process group, from
// the thread graph.Spawn keeps, so that it dies with latlab even when
// latlab is killed. The shell execs the command, so the parent-death signal
// reaches the command itself. Run by latlab (Binary set), the command
// starts under a reaper (see graph.Reap), which ends every process the
// command leaves, however deep and in whatever group, when latlab dies or
// stops it: a resumed run never finds the last one's server still there.
func (r *Runner) start(l *live) error {
	argv := []string{"sh", "-c", "exec " + l.v.Start}
	var cmd *exec.Cmd
	var pidr *os.File
	if r.Binary != "" {
		cmd = graph.ReapCmd(r.Binary, argv...)
		var pidw *os.File
		var err error
		if pidr, pidw, err = os.Pipe(); err != nil {
			return err
		}
		defer pidr.Close()
		defer pidw.Close()
		cmd.ExtraFiles = []*os.File{pidw}
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	}
	cmd.Dir, cmd.Env = r.Spec.Dir, r.commandEnv()
	out := r.NodeOutput
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := graph.SpawnOn(cmd, r.targetCPUs); err != nil {
		return err
	}
	l.started, l.exited = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(l.exited)
	}()
	pid := cmd.Process.Pid // sh execs the command: this is its process
	if pidr != nil {
		// The reaper names the command's process, the one to watch.
		cmd.ExtraFiles[0].Close()
		b, _ := io.ReadAll(io.LimitReader(pidr, 32))
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			pid = p
		}
	}
	l.watch(pid, l.v.Name)
	return nil
}

// listening returns the host:port of url when something accepts a TCP
// connection there, else "".
func listening(url string) string {
	u, err := neturl.Parse(url)
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return ""
	}
	c.Close()
	return addr
}

// waitListening waits until addr accepts connections: a gRPC target
// latlab started is ready once it listens, since an HTTP GET is no call
// it would answer.
func waitListening(ctx context.Context, addr string, limit time.Duration, exited <-chan struct{}) error {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not accept connections within %s (last: %v)", addr, limit, err)
		case <-exited:
			return fmt.Errorf("the start command exited before %s accepted connections (last: %v)", addr, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop ends the start command's process group: SIGTERM, then SIGKILL to
// whatever of the group is left after 5 s (a reaper ends its tree within
// graph.ReapGrace, before that). It returns when the whole group
// is gone, not only the command: a script's children may take their time
// to shut down, and one still exiting would be measured by the next
// trial's process probe, or hold the port its successor is to listen on.
func (l *live) stop() {
	if l.started == nil {
		return
	}
	pgid := l.started.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if !groupGone(pgid, time.Now().Add(5*time.Second)) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		groupGone(pgid, time.Now().Add(5*time.Second))
	}
	<-l.exited // the command is of the group: gone, or killed
	l.started = nil
}

// groupGone waits until process group pgid has no process left but
// zombies, or until deadline, and reports whether the group is gone.
func groupGone(pgid int, deadline time.Time) bool {
	for !time.Now().After(deadline) {
		if !probe.GroupLive(pgid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return !probe.GroupLive(pgid)
}

// tearDown stops what setUp started. Errors are reported, not returned:
// tearing down goes on whatever happened.
func (r *Runner) tearDown(l *live) {
	l.stop()
	r.tearDownKube(l)
	if l.cluster != nil {
		if err := l.cluster.Stop(); err != nil {
			r.logf("variant %s: stopping its graph: %v", l.v.Name, err)
		}
	}
	if l.v.Teardown != "" {
		// A teardown runs even when the run was interrupted.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := r.shell(ctx, l.v.Teardown); err != nil {
			r.logf("variant %s: teardown %q: %v", l.v.Name, l.v.Teardown, err)
		}
	}
}

// shell runs a setup or teardown command with sh -c in the spec's folder.
// Its output goes to the node output; a command that leaves something
// running in the background does not hold latlab up.
func (r *Runner) shell(ctx context.Context, command string) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir, cmd.Env = r.Spec.Dir, r.commandEnv()
	out := r.NodeOutput
	if out == nil {
		out = io.Discard
	}
	var tail strings.Builder
	cmd.Stdout = out
	cmd.Stderr = io.MultiWriter(out, &limited{w: &tail, n: 2048})
	cmd.WaitDelay = 2 * time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var err error
	if r.targetCPUs != nil {
		if err = graph.SpawnOn(cmd, r.targetCPUs); err == nil {
			err = cmd.Wait()
		}
	} else {
		err = cmd.Run()
	}
	if err != nil && !isWaitDelay(err) {
		if s := strings.TrimSpace(tail.String()); s != "" {
			return fmt.Errorf("%w: %s", err, s)
		}
		return err
	}
	return nil
}

// commandEnv is the environment of a variant's commands: latlab's own,
// and, when the spec has traces: true, the trace receiver's endpoints,
// for a server that exports its spans: LATLAB_OTLP_HTTP, the OTLP/HTTP
// base URL (an exporter appends /v1/traces), and LATLAB_OTLP_GRPC, the
// OTLP/gRPC host:port, without TLS.
func (r *Runner) commandEnv() []string {
	env := os.Environ()
	if r.tracesURL != "" {
		env = append(env, "LATLAB_OTLP_HTTP="+r.tracesURL, "LATLAB_OTLP_GRPC="+r.tracesGRPC)
	}
	return env
}

func isWaitDelay(err error) bool { return err != nil && strings.Contains(err.Error(), "WaitDelay") }

// limited writes at most n bytes to w.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}

// waitReady polls url until it answers 200 (any answer at all with
// anyAnswer), for at most limit, giving up early when exited closes.
func waitReady(ctx context.Context, url string, limit time.Duration, anyAnswer bool, exited <-chan struct{}, tf load.TLSFiles) error {
	if limit <= 0 {
		limit = spec.DefaultReadyTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if u, err := neturl.Parse(url); err == nil && (u.Scheme == "grpc" || u.Scheme == "grpcs") {
		return waitListening(ctx, u.Host, limit, exited)
	}
	var client *http.Client
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("ready URL %s: %w", url, err)
		}
		if client == nil {
			// The load's TLS settings, read until they can be: the CA of
			// a server that makes its own appears once it has started.
			var cfg *tls.Config
			if cfg, err = tf.Config(); err == nil {
				tr := http.DefaultTransport.(*http.Transport).Clone()
				tr.TLSClientConfig = cfg
				client = &http.Client{Timeout: time.Second, Transport: tr}
			}
		}
		var resp *http.Response
		if err == nil {
			resp, err = client.Do(req)
		}
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || anyAnswer {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready within %s (last: %s)", url, limit, last)
		case <-exited:
			return fmt.Errorf("the start command exited before %s was ready (last: %s)", url, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
