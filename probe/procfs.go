package probe

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// userHZ is the unit of the CPU times in /proc/PID/stat. It is 100 on every
// Linux that matters (procfs and ps assume the same).
const userHZ = 100

// procStat is what the probe needs from /proc/PID/stat.
type procStat struct {
	comm      string
	state     byte
	ppid      int
	pgrp      int
	ticks     uint64 // utime + stime, in 1/userHZ s
	starttime uint64 // in ticks after boot; tells a reused PID apart
}

// parseStat parses the contents of /proc/PID/stat. The command name is in
// parentheses and may itself contain spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, errors.New("stat: no (comm)")
	}
	// After ") " come field 3 (state) onwards.
	fields := strings.Fields(string(b[end+1:]))
	if len(fields) < 20 {
		return procStat{}, fmt.Errorf("stat: %d fields after comm, want at least 20", len(fields))
	}
	st := procStat{comm: string(b[open+1 : end])}
	if len(fields[0]) != 1 {
		return procStat{}, fmt.Errorf("stat: state %q", fields[0])
	}
	st.state = fields[0][0]
	ppid, err0 := strconv.Atoi(fields[1])                // field 4
	pgrp, err4 := strconv.Atoi(fields[2])                // field 5
	utime, err1 := strconv.ParseUint(fields[11], 10, 64) // field 14
	stime, err2 := strconv.ParseUint(fields[12], 10, 64) // field 15
	start, err3 := strconv.ParseUint(fields[19], 10, 64) // field 22
	if err := errors.Join(err0, err1, err2, err3, err4); err != nil {
		return procStat{}, fmt.Errorf("stat: %w", err)
	}
	st.ppid, st.pgrp, st.ticks, st.starttime = ppid, pgrp, utime+stime, start
	return st, nil
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// readRSS returns the resident set size in bytes from /proc/PID/status.
// Kernel threads have no VmRSS line; their RSS is 0.
func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		kb, ok := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok {
			return 0, fmt.Errorf("status: VmRSS %q not in kB", strings.TrimSpace(rest))
		}
		n, err := strconv.ParseInt(strings.TrimSpace(kb), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("status: VmRSS: %w", err)
		}
		return n << 10, nil
	}
	return 0, nil
}

// descendants returns the processes descended from each of roots, by
// root, each list in ascending order, read from every process's parent in
// /proc. A root that is gone has none; a process under two roots (one root
// under another) is listed under both, and so is a root under another.
// Processes that vanish while it looks are skipped.
func descendants(roots []int) map[int][]int {
	out := map[int][]int{}
	if len(roots) == 0 {
		return out
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	children := map[int][]int{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if st, err := readStat(pid); err == nil && st.ppid > 0 {
			children[st.ppid] = append(children[st.ppid], pid)
		}
	}
	for _, r := range roots {
		var list []int
		queue := slices.Clone(children[r])
		for len(queue) > 0 {
			pid := queue[0]
			queue = queue[1:]
			list = append(list, pid)
			queue = append(queue, children[pid]...)
		}
		slices.Sort(list)
		out[r] = list
	}
	return out
}

// Descendants returns, in ascending order, every process below pid now:
// its children, theirs, and so on.
func Descendants(pid int) []int { return descendants([]int{pid})[pid] }

// FindPIDs returns, in ascending order, the processes named name: those whose
// /proc/PID/comm is name (or its first 15 bytes, where the kernel cuts it),
// or whose command line starts with a program called name. Processes that
// vanish while it looks are skipped, and so are zombies: a process that has
// ended has nothing left to measure.
func FindPIDs(name string) ([]int, error) {
	if name == "" {
		return nil, errors.New("finding processes: empty name")
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("finding processes named %s: %w", name, err)
	}
	short := name
	if len(short) > 15 {
		short = short[:15]
	}
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if named(pid, name, short) && !ended(pid) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids, nil
}

// named reports whether process pid is called name, as FindPIDs says;
// short is name cut to the kernel's 15 bytes.
func named(pid int, name, short string) bool {
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.TrimSuffix(string(comm), "\n") == short {
		return true
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(cmdline) == 0 {
		return false
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(argv0)) == name
}

// ended reports whether process pid is gone or a zombie (state Z or X).
func ended(pid int) bool {
	st, err := readStat(pid)
	return err != nil || st.state == 'Z' || st.state == 'X'
}

// GroupLive reports whether process group pgid has a process that has not
// ended: kill(2) finds zombies too, which only their parent can clear.
func GroupLive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if st, err := readStat(pid); err == nil && st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}
