package exepages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release unmaps the resident pages of the running executable's read-only
// mappings that hold no page of the process's own (copy-on-write): the
// text, read-only data and symbol tables. It returns the number of bytes
// of mappings released.
func Release() (int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("releasing the executable's pages: %w", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("releasing the executable's pages: %w", err)
	}
	var released int64
	for _, m := range releasable(parse(smaps), exe) {
		// By address: the mapping is no Go memory to make a slice of.
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED); e != 0 {
			return released, fmt.Errorf("releasing the executable's pages at %#x: %w", m.start, e)
		}
		released += int64(m.end - m.start)
	}
	return released, nil
}

// releasable returns the mappings of ms that map the file exe read-only
// and hold no private copy of any of its pages: releasing them loses
// nothing.
func releasable(ms []mapping, exe string) []mapping {
	var out []mapping
	for _, m := range ms {
		if m.path == exe && !m.writable && m.anonymous == 0 {
			out = append(out, m)
		}
	}
	return out
}

// mapping is one entry of /proc/self/smaps.
type mapping struct {
	start, end uintptr
	writable   bool
	path       string
	rss        int64 // kB resident
	anonymous  int64 // kB of private copies, for a file mapping; -1 unknown
}

// parse reads the mappings of an smaps file: a header line per mapping
// ("start-end perms offset dev inode path"), then "Key: value kB" lines.
func parse(smaps []byte) []mapping {
	var ms []mapping
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if k, ok := strings.CutSuffix(f[0], ":"); ok {
			if len(ms) == 0 || len(f) < 2 {
				continue
			}
			m := &ms[len(ms)-1]
			switch k {
			case "Rss":
				m.rss, _ = strconv.ParseInt(f[1], 10, 64)
			case "Anonymous":
				if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					m.anonymous = n
				}
			}
			continue
		}
		start, end, ok := strings.Cut(f[0], "-")
		if !ok || len(f) < 5 {
			continue
		}
		a, err1 := strconv.ParseUint(start, 16, 64)
		b, err2 := strconv.ParseUint(end, 16, 64)
		if err1 != nil || err2 != nil || b <= a {
			continue
		}
		m := mapping{start: uintptr(a), end: uintptr(b), writable: strings.Contains(f[1], "w"), anonymous: -1}
		if len(f) >= 6 {
			m.path = strings.Join(f[5:], " ")
		}
		ms = append(ms, m)
	}
	return ms
}
