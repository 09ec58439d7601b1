package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// mountPoints makes the files and directories that volume mounts cover
// when the host lacks them, records them in a file, and removes them once
// no mount namespace uses them. A bind mount needs a file or directory to
// cover, and the pods' mount namespaces share the host's file system, so
// a mountPath such as /etc/latlab exists on the host, empty, while pods
// use it. It is safe for concurrent use.
type mountPoints struct {
	file string // one path a line, parents before children

	mu    sync.Mutex
	paths []string
}

// loadMountPoints reads the record of a previous runner, if any.
func loadMountPoints(file string) *mountPoints {
	m := &mountPoints{file: file}
	b, err := os.ReadFile(file)
	if err == nil {
		for _, p := range strings.Split(string(b), "\n") {
			if filepath.IsAbs(p) {
				m.paths = append(m.paths, p)
			}
		}
	}
	return m
}

// ensure makes path, a directory or an empty file, with the directories
// above it, if it does not exist, and records what it made.
func (m *mountPoints) ensure(path string, dir bool) error {
	path = filepath.Clean(path)
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() != dir {
			return fmt.Errorf("mount point %s exists and is not a %s", path, map[bool]string{true: "directory", false: "file"}[dir])
		}
		return nil
	}
	// The missing directories above path, outermost first.
	var missing []string
	for p := filepath.Dir(path); p != "/"; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		missing = append([]string{p}, missing...)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range missing {
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		m.paths = append(m.paths, p)
	}
	var err error
	if dir {
		err = os.Mkdir(path, 0o755)
	} else {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
			err = f.Close()
		}
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	m.paths = append(m.paths, path)
	return m.save()
}

// prune removes the recorded paths that are empty and that no mount
// namespace of the machine has a mount on or under, deepest first, and
// forgets those that are gone. Another cluster's pod may use a path this
// runner made: it is kept while that pod's mount is there (removing a
// directory another namespace mounts on would unmount it there), and
// lockMountPoints keeps it while a container is about to mount on it.
func (m *mountPoints) prune() error {
	unlock, err := lockMountPoints()
	if err != nil {
		return err
	}
	defer unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.paths) == 0 {
		return nil
	}
	used, err := mountedPaths()
	if err != nil {
		return err
	}
	inUse := func(p string) bool {
		for _, u := range used {
			if u == p || strings.HasPrefix(u, p+"/") {
				return true
			}
		}
		return false
	}
	var keep []string
	for i := len(m.paths) - 1; i >= 0; i-- {
		p := m.paths[i]
		st, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if inUse(p) || slices.Contains(keep, p) {
			keep = append(keep, p)
			continue
		}
		if !st.IsDir() && st.Size() > 0 {
			continue // someone wrote to it: not ours any more
		}
		if err := os.Remove(p); err != nil {
			keep = append(keep, p) // not empty, or in use after all
		}
	}
	slices.Reverse(keep)
	m.paths = slices.Compact(keep)
	return m.save()
}

func (m *mountPoints) save() error {
	if len(m.paths) == 0 {
		if err := os.Remove(m.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return os.WriteFile(m.file, []byte(strings.Join(m.paths, "\n")+"\n"), 0o644)
}

// mountedPaths returns the mount points of every mount namespace that a
// process of the machine is in.
func mountedPaths() ([]string, error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var paths []string
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		ns, err := os.Readlink("/proc/" + p.Name() + "/ns/mnt")
		if err != nil || seen[ns] {
			continue
		}
		seen[ns] = true
		f, err := os.Open("/proc/" + p.Name() + "/mountinfo")
		if err != nil {
			continue // the process ended
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 4 {
				paths = append(paths, unescapeMount(fields[4]))
			}
		}
		f.Close()
	}
	return paths, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountPointsLock is the machine's lock over mount points, shared by the
// runners of every cluster: a runner may mount on a path another made.
var mountPointsLock = filepath.Join(cmp.Or(existingDir("/run/lock"), os.TempDir()), "latlab-kube-mountpoints.lock")

// lockMountPoints takes the machine's lock over mount points: held from
// the making of a container's mount points until it has mounted on them,
// and while pruning, so that no runner removes a path another is about
// to mount on. The lock is an flock of its own open file, so it excludes
// goroutines of one runner as it does other runners.
func lockMountPoints() (unlock func(), err error) {
	f, err := os.OpenFile(mountPointsLock, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("the mount points' lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("the mount points' lock %s: %w", mountPointsLock, err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}

// existingDir returns dir if it is a directory, else "".
func existingDir(dir string) string {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}
