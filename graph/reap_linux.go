package graph

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/probe"
)

// A command's whole tree. A spec's start command may fork: a script that
// starts a server without exec, a server that daemonizes. A parent-death
// signal reaches only the process latlab started, and a process group only
// the processes that stay in it; what escapes both outlives a latlab
// killed with SIGKILL, and the next run measures it. So latlab starts such
// a command under a reaper, latlab itself run as "latlab __reap -- ARGV":
// a child subreaper (PR_SET_CHILD_SUBREAPER), so that every descendant
// that loses its parent becomes its child rather than init's, with a
// parent-death signal it catches. When latlab dies, however it dies, or
// tells it to stop (SIGTERM), or when the command ends, the reaper ends
// every process below it: SIGTERM, then SIGKILL to what is left after
// ReapGrace, and exits once none is left, with the command's status.

// ReapCommand is the first argument that makes latlab a reaper.
const ReapCommand = "__reap"

// ReapGrace is how long the processes of a reaper's tree have to end
// after SIGTERM before they are killed.
const ReapGrace = 4 * time.Second

// ReapCmd returns the command that runs argv under a reaper, binary being
// latlab. The reaper writes the command's pid on its descriptor 3 (see
// ReapedPID).
func ReapCmd(binary string, argv ...string) *exec.Cmd {
	cmd := exec.Command(binary, append([]string{ReapCommand, "--"}, argv...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	return cmd
}

// Reap is the reaper's whole life (see ReapCommand): it runs args (after
// "--") and returns the exit status latlab __reap exits with.
func Reap(args []string) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "latlab: __reap -- PROGRAM [ARG...]")
		return 2
	}
	// Descriptor 3, where the command's pid goes when latlab passed a
	// pipe there, is the reaper's alone: a command that inherited it would
	// hold latlab's read open.
	var pidTo *os.File
	var st unix.Stat_t
	if unix.Fstat(3, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
		syscall.CloseOnExec(3)
		pidTo = os.NewFile(3, "pid")
	}
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "latlab: reaper: %v\n", err)
		return 126
	}
	if os.Getppid() == 1 {
		return 125 // latlab died before the reaper could watch it
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "latlab: %v\n", err)
		return 127
	}
	if pidTo != nil {
		_, _ = pidTo.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
		pidTo.Close()
	}
	// Every child is waited for here, the command and the orphans that
	// came to the reaper alike: cmd.Wait would race this loop.
	status, gone := make(chan int, 1), make(chan struct{})
	go func() {
		defer close(gone)
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, 0, nil)
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case err != nil: // ECHILD: no child left
				return
			case pid == cmd.Process.Pid:
				status <- exitStatus(ws)
			}
		}
	}()
	code := -1
	select {
	case code = <-status:
	case <-sig:
	}
	endTree(gone)
	if code < 0 {
		select {
		case code = <-status:
		default:
			code = 128 + int(syscall.SIGTERM)
		}
	}
	return code
}

// endTree ends every descendant of this process: SIGTERM, then SIGKILL
// after ReapGrace, until gone closes, when none is left.
func endTree(gone <-chan struct{}) {
	signalTree(syscall.SIGTERM)
	deadline := time.After(ReapGrace)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	killing := false
	for {
		select {
		case <-gone:
			return
		case <-deadline:
			killing = true
		case <-tick.C:
		}
		if killing {
			signalTree(syscall.SIGKILL)
		} else {
			signalTree(syscall.SIGTERM) // what forked since
		}
	}
}

// signalTree sends sig to every descendant of this process, once each
// signal round: found from /proc, since they may have left every group.
func signalTree(sig syscall.Signal) {
	for _, pid := range probe.Descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// exitStatus is a shell's reading of ws: the code, or 128 + the signal.
func exitStatus(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
