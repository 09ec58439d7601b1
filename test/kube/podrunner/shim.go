package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// shimArg is the first argument that makes the binary the shim.
const shimArg = "__shim"

// shimSpec is what the shim does before it becomes the container.
type shimSpec struct {
	Path     string   // the program: a path, or a name looked up in Env's PATH
	Args     []string // its argv, argv[0] first
	Env      []string // NAME=VALUE
	Dir      string   // working directory; "" for /
	Hostname string
	Mounts   []bindMount
}

// bindMount mounts Source over Target.
type bindMount struct {
	Source, Target string
	ReadOnly       bool
}

// shim runs inside a pod, under "ip netns exec NAME", which has put it in
// the pod's network namespace and in a mount namespace of its own whose
// mounts do not propagate to the host's; the runner has put it in a UTS
// namespace of its own. It mounts the volumes, sets the hostname and
// execs the container's program. File descriptor 3 is the runner's start
// pipe: it closes on a successful exec; otherwise the shim writes why the
// container could not start to it and exits with 128, as a runtime's
// StartError does.
func shim(args []string) int {
	status := os.NewFile(3, "start pipe")
	syscall.CloseOnExec(3)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(status, format, a...)
		return 128
	}
	if len(args) != 1 {
		return fail("shim: want one argument, the spec")
	}
	var spec shimSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fail("shim: %v", err)
	}
	// The program is the image's, which no volume covers: a path of the
	// host's, opened before the mounts, which may cover it (a volume at
	// /tmp, the binary in /tmp).
	if strings.Contains(spec.Path, "/") {
		fd, err := unix.Open(spec.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail("exec %s: %v", spec.Path, err)
		}
		spec.Path = fmt.Sprintf("/proc/self/fd/%d", fd)
	}
	// Every source is opened before the first mount, which may cover
	// the others (a volume at /tmp when the pod's files are in /tmp), and
	// the mounts go shallowest first, so that a volume inside another
	// lands on top of it.
	sources := make([]string, len(spec.Mounts))
	for i, m := range spec.Mounts {
		fd, err := unix.Open(m.Source, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail("volume %s: %v", m.Source, err)
		}
		sources[i] = fmt.Sprintf("/proc/self/fd/%d", fd)
	}
	order := make([]int, len(spec.Mounts))
	for i := range order {
		order[i] = i
	}
	depth := func(p string) int { return strings.Count(filepath.Clean(p), "/") }
	slices.SortStableFunc(order, func(a, b int) int { return depth(spec.Mounts[a].Target) - depth(spec.Mounts[b].Target) })
	for _, i := range order {
		m := spec.Mounts[i]
		if err := unix.Mount(sources[i], m.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fail("mounting %s at %s: %v", m.Source, m.Target, err)
		}
		if m.ReadOnly {
			if err := unix.Mount("", m.Target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
				return fail("making %s read-only: %v", m.Target, err)
			}
		}
	}
	if spec.Hostname != "" {
		if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
			return fail("setting the hostname: %v", err)
		}
	}
	dir := spec.Dir
	if dir == "" {
		dir = "/"
	}
	if err := os.Chdir(dir); err != nil {
		return fail("working directory: %v", err)
	}
	path, err := lookPath(spec.Path, spec.Env)
	if err != nil {
		return fail("%v", err)
	}
	err = syscall.Exec(path, spec.Args, spec.Env)
	return fail("exec %s: %v", path, err)
}

// lookPath finds name as a shell would in env's PATH.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := defaultPath
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
}
