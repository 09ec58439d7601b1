package graph

import (
	"os/exec"
	"runtime"
	"sync"
)

// spawns feeds the one thread every child is started from.
var (
	spawnOnce sync.Once
	spawns    chan spawnReq
)

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

// Spawn starts cmd from a thread that lives as long as this process. A
// parent-death signal (SysProcAttr.Pdeathsig) fires when the thread that
// started the child ends, not the process, so children that must die with
// latlab — even when it is killed with SIGKILL — are started here.
func Spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawns = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread stays for good
			for r := range spawns {
				r.err <- r.cmd.Start()
			}
		}()
	})
	r := spawnReq{cmd: cmd, err: make(chan error)}
	spawns <- r
	return <-r.err
}
