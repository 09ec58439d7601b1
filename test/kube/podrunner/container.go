package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// container is one container of a pod: its spec, its runs and what the
// kubelet would report of it. Only its pod's worker touches it.
type container struct {
	spec    *corev1.Container
	init    bool // an init container
	sidecar bool // an init container with restartPolicy Always

	run      *instance                        // the current run; nil before the first
	last     *corev1.ContainerStateTerminated // the run before, for lastState
	restarts int32
	waiting  *corev1.ContainerStateWaiting // why it is not running, when it is not

	endSeen bool // the worker has taken the current run's end

	backoff   time.Duration // the next restart's delay; 0 restarts at once
	notBefore time.Time     // no start before then

	pullFailed  time.Time     // the last failed pull, for ErrImagePull then ImagePullBackOff
	pullBackoff time.Duration // the delay after it

	started bool // the current run passed its startup probe, or has none
	ready   bool // the current run passed its readiness probe, or has none
}

// instance is one run of a container: a process group in the pod's
// namespaces.
type instance struct {
	id      string
	pid     int
	started time.Time
	env     []string // its environment, for exec probes
	log     *logFile
	exited  chan struct{} // closed once term is set
	term    *corev1.ContainerStateTerminated
	probes  context.CancelFunc // stops its probes
}

// running tells whether the run has not ended.
func (in *instance) running() bool {
	select {
	case <-in.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM to the run's process group, waits up to grace for it
// to end, then SIGKILLs what is left of the group.
func (in *instance) stop(grace time.Duration) {
	if in.running() {
		_ = syscall.Kill(-in.pid, syscall.SIGTERM)
		select {
		case <-in.exited:
		case <-time.After(grace):
		}
	}
	// Children the container left behind are in its group too.
	_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	select {
	case <-in.exited:
	case <-time.After(10 * time.Second):
	}
}

// command returns the program and argv of container c of an image whose
// entrypoint is the local binary entrypoint: its command, if it has one,
// replaces the entrypoint, as in Kubernetes, and its args follow. A
// command whose program has the entrypoint's base name, or the image's
// (latlab, or /usr/local/bin/latlab, for latlab/latlab:dev run as
// /tmp/bin/latlab), is the entrypoint; any other is looked up on the host.
func command(c *corev1.Container, entrypoint string, env *envList) (string, []string) {
	argv := []string{entrypoint}
	if len(c.Command) > 0 {
		argv = slices.Clone(c.Command)
	}
	argv = append(argv, c.Args...)
	for i := range argv {
		argv[i] = expand(argv[i], env.get)
	}
	prog := argv[0]
	if base := filepath.Base(prog); base == filepath.Base(entrypoint) || base == imageName(c.Image) {
		prog = entrypoint
	}
	return prog, argv
}

// imageName returns the last part of an image's repository: latlab for
// ghcr.io/latlab/latlab:v1 or latlab@sha256:....
func imageName(image string) string {
	image, _, _ = strings.Cut(image, "@")
	name := image[strings.LastIndex(image, "/")+1:]
	name, _, _ = strings.Cut(name, ":")
	return name
}

// errStart is a container that could not start: its process ran but
// never became the container's program.
type errStart struct{ msg string }

func (e errStart) Error() string { return e.msg }

// startRun starts a run of c in the pod's sandbox: "ip netns exec" of the
// shim, in a UTS namespace and a process group of its own, its stdout and
// stderr copied to the run's log. It returns once the shim has exec'd the
// program, or with errStart when it could not; done is called from another
// goroutine once the run has ended and term is set.
func (w *podWorker) startRun(c *container, id, prog string, argv []string, env *envList, mounts []bindMount, logPath string, done func(*instance)) (*instance, error) {
	spec, err := json.Marshal(shimSpec{
		Path: prog, Args: argv, Env: env.list(), Dir: c.spec.WorkingDir,
		Hostname: w.hostname(), Mounts: mounts,
	})
	if err != nil {
		return nil, err
	}
	log, err := newLogFile(logPath)
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	startR, startW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("ip", "netns", "exec", w.sb.name, w.r.self, shimArg, string(spec))
	cmd.Env = []string{"PATH=" + defaultPath}
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.ExtraFiles = []*os.File{startW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Unshareflags: syscall.CLONE_NEWUTS}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	startW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		startR.Close()
		log.close()
		return nil, fmt.Errorf("starting the container: %w", err)
	}
	in := &instance{
		id:     id,
		env:    env.list(),
		pid:    cmd.Process.Pid,
		log:    log,
		exited: make(chan struct{}),
		probes: func() {},
	}
	var copiers sync.WaitGroup
	for _, s := range []struct {
		name string
		r    *os.File
	}{{"stdout", outR}, {"stderr", errR}} {
		copiers.Add(1)
		go func() {
			defer copiers.Done()
			log.copyFrom(s.name, s.r)
		}()
	}
	// The start pipe closes when the shim execs the program; before
	// that, the shim may write why it could not.
	msg, _ := io.ReadAll(startR)
	startR.Close()
	in.started = time.Now()
	go in.reap(cmd, &copiers, log, string(msg), done, outR, errR)
	if len(msg) > 0 {
		return in, errStart{strings.TrimSpace(string(msg))}
	}
	return in, nil
}

// reap waits for cmd, the process of in, to exit, gives the copiers of its
// output on outR and errR what it wrote last, closes its log and tells
// done how it ended. startMsg is what the shim wrote before it failed to
// start the program, if it did.
func (in *instance) reap(cmd *exec.Cmd, copiers *sync.WaitGroup, log *logFile, startMsg string, done func(*instance), outR, errR *os.File) {
	werr := cmd.Wait()
	finished := time.Now()
	// Give the copiers what the process wrote last, but not forever:
	// a child it left behind may hold the pipes open.
	drained := make(chan struct{})
	go func() { copiers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(2 * time.Second):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()
	log.close()
	in.term = termination(cmd.ProcessState, werr, startMsg, in, finished)
	close(in.exited)
	done(in)
}

// termination describes how a run ended, as a runtime reports it.
func termination(ps *os.ProcessState, werr error, startMsg string, in *instance, finished time.Time) *corev1.ContainerStateTerminated {
	t := &corev1.ContainerStateTerminated{
		StartedAt:   metav1.NewTime(in.started),
		FinishedAt:  metav1.NewTime(finished),
		ContainerID: in.id,
	}
	switch {
	case startMsg != "":
		t.ExitCode, t.Reason, t.Message = 128, "StartError", startMsg
		return t
	case ps == nil:
		t.ExitCode, t.Reason, t.Message = 128, "Error", fmt.Sprint(werr)
		return t
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Signal = int32(ws.Signal())
		t.ExitCode = 128 + int32(ws.Signal())
	} else {
		t.ExitCode = int32(ps.ExitCode())
	}
	t.Reason = "Completed"
	if t.ExitCode != 0 {
		t.Reason = "Error"
	}
	return t
}
