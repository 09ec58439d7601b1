package graph

import (
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// spawns feeds the one thread every child is started from.
var (
	spawnOnce sync.Once
	spawns    chan spawnReq
)

type spawnReq struct {
	cmd  *exec.Cmd
	cpus []int
	err  chan error
}

// Spawn starts cmd from a thread that lives as long as this process. A
// parent-death signal (SysProcAttr.Pdeathsig) fires when the thread that
// started the child ends, not the process, so children that must die with
// latlab — even when it is killed with SIGKILL — are started here.
func Spawn(cmd *exec.Cmd) error { return SpawnOn(cmd, nil) }

// SpawnOn is Spawn with the child's CPU affinity set to cpus from its first
// instruction: a child inherits the mask of the thread that forks it, so
// the spawning thread takes that mask for the fork and then its own again.
// With no cpus the child inherits the thread's mask, which is latlab's.
func SpawnOn(cmd *exec.Cmd, cpus []int) error {
	spawnOnce.Do(func() {
		spawns = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread stays for good
			for r := range spawns {
				r.err <- start(r.cmd, r.cpus)
			}
		}()
	})
	r := spawnReq{cmd: cmd, cpus: cpus, err: make(chan error)}
	spawns <- r
	return <-r.err
}

// start starts cmd on the calling thread with its affinity set to cpus.
func start(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	var own, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		return fmt.Errorf("reading the CPUs this thread may use: %w", err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("starting on CPUs %v: %w", cpus, err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &own); rerr != nil && err == nil {
		err = fmt.Errorf("restoring the spawning thread's CPUs: %w", rerr)
	}
	return err
}

// cpuArg writes cpus as serve's --cpus reads them: "0,2,3".
func cpuArg(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}
