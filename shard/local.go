package shard

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/latlab/latlab/remote"

	"github.com/latlab/latlab/graph"
)

// Local are shards run as latlab agent processes on this machine.
type Local struct {
	Members []Member
	procs   []*exec.Cmd
	done    []chan struct{}
}

// LocalOptions say how to start local shards. The zero value starts
// this executable's agent, on every CPU, its output discarded.
type LocalOptions struct {
	Binary string        // latlab; "" means this executable
	CPUs   [][]int       // shard i runs on CPUs[i] when given: one list per shard, or none
	Output io.Writer     // the agents' logs, each line behind "shard I| "; nil discards them
	Idle   time.Duration // each agent ends after this long without a request (DefaultAgentIdle)
}

// StartLocal starts n latlab agent processes on 127.0.0.1, shard i
// pinned to o.CPUs[i] when given, each on a listening socket made here
// and handed down, so that no port is taken between, and each with a token
// of its own handed down a pipe, so that only this process drives it. They
// die with this process, even when it is killed with SIGKILL. Each member's Gone
// delivers how its process ended, should it end before Stop.
func StartLocal(n int, o LocalOptions) (*Local, error) {
	if n < 1 {
		return nil, fmt.Errorf("local shards: %d: want at least 1", n)
	}
	if len(o.CPUs) > 0 && len(o.CPUs) != n {
		return nil, fmt.Errorf("local shards: %d CPU lists for %d shards", len(o.CPUs), n)
	}
	if o.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the latlab executable: %w", err)
		}
		o.Binary = exe
	}
	if o.Output == nil {
		o.Output = io.Discard
	}
	ls := &Local{}
	for i := range n {
		m, err := ls.start(i, o)
		if err != nil {
			ls.Stop()
			return nil, fmt.Errorf("local shard %d: %w", i, err)
		}
		ls.Members = append(ls.Members, m)
	}
	return ls, nil
}

// start starts shard i's agent.
func (ls *Local) start(i int, o LocalOptions) (Member, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Member{}, err
	}
	f, err := ln.(*net.TCPListener).File()
	addr := ln.Addr().String()
	ln.Close() // f holds its own descriptor of the socket
	if err != nil {
		return Member{}, err
	}
	defer f.Close()
	token, err := remote.NewToken()
	if err != nil {
		return Member{}, err
	}
	tr, tw, err := os.Pipe()
	if err != nil {
		return Member{}, err
	}
	defer tr.Close()
	defer tw.Close()
	args := []string{"agent", "--listen", addr, "--listen-fd", "3", "--token-file", "/dev/fd/4",
		"--idle", orDefault(o.Idle, remote.DefaultAgentIdle).String()}
	cmd := exec.Command(o.Binary, args...)
	out := graph.Prefixed(o.Output, "shard "+strconv.Itoa(i))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{f, tr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	var cpus []int
	if len(o.CPUs) > 0 {
		cpus = o.CPUs[i]
	}
	if err := graph.SpawnOn(cmd, cpus); err != nil {
		return Member{}, fmt.Errorf("starting %s: %w", o.Binary, err)
	}
	// The pipe holds far more than a token: the write does not wait for
	// the agent to read.
	if _, err := io.WriteString(tw, token); err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return Member{}, fmt.Errorf("handing shard %d its token: %w", i, err)
	}
	tw.Close()
	done := make(chan struct{})
	gone := make(chan string, 1)
	go func() {
		err := cmd.Wait()
		close(done)
		why := "exited"
		if err != nil {
			why = err.Error()
		}
		gone <- fmt.Sprintf("process %d %s", cmd.Process.Pid, why)
	}()
	ls.procs, ls.done = append(ls.procs, cmd), append(ls.done, done)
	return Member{Remote: &remote.Client{URL: "http://" + addr, Token: token, Ready: 30 * time.Second}, Name: "pid " + strconv.Itoa(cmd.Process.Pid), Gone: gone}, nil
}

// Stop kills every shard's process group and waits for them.
func (ls *Local) Stop() {
	for i, cmd := range ls.procs {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-ls.done[i]
	}
	ls.procs, ls.done = nil, nil
}

// Run runs b's trial on the shards (Run).
func (ls *Local) Run(ctx context.Context, b *remote.Bundle, o Options) (Result, error) {
	return Run(ctx, ls.Members, b, o)
}
