package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// LaunchOptions configure Launch. The zero value starts this executable's
// "serve" on 127.0.0.1 and waits up to 30 s for every node.
type LaunchOptions struct {
	Binary string        // the latlab executable; "" means this one
	Args   []string      // more arguments for every node's "serve", such as --cpus
	Host   string        // address nodes listen on; "" means 127.0.0.1
	Ready  time.Duration // how long a node may take to answer /healthz; 0 means 30 s
	Output io.Writer     // where nodes' stdout and stderr go; nil discards them
	Env    []string      // more environment variables for every node, KEY=value
	CPUs   []int         // start every node on these CPUs and have it keep to them; nil means latlab's
}

// A Cluster is a graph running as local processes.
type Cluster struct {
	Entry string  // URL of the entry service (see EntryURL)
	Nodes []*Proc // in topology order

	exited chan *Proc // a node as it ends
	stop   sync.Once
}

// Proc is one node's process. Its fields do not change once Launch has
// returned; Err is known once the process has ended.
type Proc struct {
	Name string
	URL  string
	PID  int
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Err returns how the process ended; call it once the process has ended
// (as Exited reports).
func (p *Proc) Err() error { return p.err }

// Launch starts every service of t as its own "latlab serve" process,
// listening where the topology says (a free port when it says 0), and
// returns once every node answers /healthz. If a node fails to start, the
// others are stopped and the error names it.
//
// The nodes die with the process that launched them, even when it is
// killed with SIGKILL: each is started by Spawn with a parent-death signal.
func Launch(ctx context.Context, t *Topology, o LaunchOptions) (*Cluster, error) {
	if o.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the latlab executable: %w", err)
		}
		o.Binary = exe
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Ready <= 0 {
		o.Ready = 30 * time.Second
	}
	if o.Output == nil {
		o.Output = io.Discard
	}
	// Listen first, so that every node's address is known before any starts
	// and no port can be taken in between: each listener is handed to its
	// node as file descriptor 3.
	files := make([]*os.File, len(t.Services))
	urls := map[string]string{}
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for i, s := range t.Services {
		ln, err := net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(s.Port)))
		if err != nil {
			return nil, fmt.Errorf("service %s: listening: %w", s.Name, err)
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close() // f holds its own descriptor of the socket
		if err != nil {
			return nil, fmt.Errorf("service %s: listening: %w", s.Name, err)
		}
		files[i] = f
		urls[s.Name] = "http://" + ln.Addr().String()
	}
	c := &Cluster{exited: make(chan *Proc, len(t.Services))}
	for i, s := range t.Services {
		args := []string{"serve", "--topology", t.File, "--service", s.Name,
			"--listen", urls[s.Name][len("http://"):], "--listen-fd", "3"}
		for _, p := range t.Services {
			if p.Name != s.Name {
				args = append(args, "--peer", p.Name+"="+urls[p.Name])
			}
		}
		if len(o.CPUs) > 0 {
			args = append(args, "--cpus", cpuArg(o.CPUs))
		}
		args = append(args, o.Args...)
		cmd := exec.Command(o.Binary, args...)
		cmd.Stdout, cmd.Stderr = Prefixed(o.Output, s.Name), Prefixed(o.Output, s.Name)
		cmd.ExtraFiles = []*os.File{files[i]}
		if len(o.Env) > 0 {
			cmd.Env = append(os.Environ(), o.Env...)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
		if err := SpawnOn(cmd, o.CPUs); err != nil {
			c.Stop()
			return nil, fmt.Errorf("service %s: starting %s: %w", s.Name, o.Binary, err)
		}
		p := &Proc{Name: s.Name, URL: urls[s.Name], PID: cmd.Process.Pid, cmd: cmd, done: make(chan struct{})}
		c.Nodes = append(c.Nodes, p)
		go c.reap(p)
	}
	c.Entry = EntryURL(t.Entry(), urls[t.Entry().Name][len("http://"):])
	if err := c.waitReady(ctx, o.Ready); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// EntryURL returns the URL that load is sent to when s, listening at
// hostport, is a graph's entry: http://HOST:PORT/, or for a gRPC service
// grpc://HOST:PORT/latlab.graph.v1.Node/Run.
func EntryURL(s *Service, hostport string) string {
	if s.Protocol == GRPC {
		return "grpc://" + hostport + RunMethod
	}
	return "http://" + hostport
}

func (c *Cluster) reap(p *Proc) {
	p.err = p.cmd.Wait()
	close(p.done)
	c.exited <- p
}

// waitReady polls every node's /healthz until all answer 200.
func (c *Cluster) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for _, p := range c.Nodes {
		for {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/healthz", nil)
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			select {
			case <-p.done:
				return fmt.Errorf("service %s exited before it was ready: %w", p.Name, p.err)
			case <-ctx.Done():
				return fmt.Errorf("service %s did not answer %s/healthz within %s", p.Name, p.URL, limit)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

// Exited returns a channel that yields each node as it ends.
func (c *Cluster) Exited() <-chan *Proc { return c.exited }

// Stop ends every node: SIGTERM, then SIGKILL for any still running after
// 5 s. It waits until all have exited.
func (c *Cluster) Stop() error {
	var errs []error
	c.stop.Do(func() {
		for _, p := range c.Nodes {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
		}
		deadline := time.After(5 * time.Second)
		for _, p := range c.Nodes {
			select {
			case <-p.done:
			case <-deadline:
				_ = syscall.Kill(-p.PID, syscall.SIGKILL)
				<-p.done
				errs = append(errs, fmt.Errorf("service %s did not stop within 5s and was killed", p.Name))
			}
		}
	})
	return errors.Join(errs...)
}
