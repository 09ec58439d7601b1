//go:build linux

package exepages

import (
	"os"
	"testing"
)

// written is changed at run time: its page in the executable's writable
// data is the process's own copy, which Release must keep.
var written = 1

// exeRSS returns the kB of the test binary resident in the process.
func exeRSS(t *testing.T) int64 {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	var kb int64
	for _, m := range parse(b) {
		if m.path == exe {
			kb += m.rss
		}
	}
	return kb
}

// TestRelease releases the test binary's read-only pages: fewer of them
// are resident after, the code goes on running (its pages come back as
// they are used), and data written at run time keeps its value.
func TestRelease(t *testing.T) {
	written = 42
	before := exeRSS(t)
	n, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := exeRSS(t)
	t.Logf("released %d bytes of mappings; %d kB of the binary resident before, %d kB after", n, before, after)
	if n == 0 {
		t.Fatal("released no mapping of the test binary")
	}
	if after >= before {
		t.Errorf("%d kB of the binary resident after Release, %d kB before: want fewer", after, before)
	}
	if written != 42 {
		t.Errorf("a variable written at run time reads %d after Release, want 42", written)
	}
}

// TestReleasable keeps only read-only mappings of the executable that hold
// no private copies.
func TestReleasable(t *testing.T) {
	const smaps = `00400000-01321000 r-xp 00000000 fe:00 10215799   /usr/bin/latlab
Rss:                9704 kB
Anonymous:             0 kB
01321000-0225e000 r--p 00f21000 fe:00 10215799   /usr/bin/latlab
Rss:                9332 kB
Anonymous:             0 kB
0225e000-0230c000 rw-p 01e5e000 fe:00 10215799   /usr/bin/latlab
Rss:                 464 kB
Anonymous:           100 kB
0230c000-0230d000 r--p 01f0c000 fe:00 10215799   /usr/bin/latlab
Rss:                   4 kB
Anonymous:             4 kB
0230d000-0230e000 r--p 01f0d000 fe:00 10215799   /usr/bin/latlab
Rss:                   4 kB
7f6571bb0000-7f6571d06000 r-xp 00026000 fe:00 326269   /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                 896 kB
Anonymous:             0 kB
2bca90000000-2bca92000000 rw-p 00000000 00:00 0
Rss:               23548 kB
Anonymous:         23548 kB
`
	got := releasable(parse([]byte(smaps)), "/usr/bin/latlab")
	if len(got) != 2 || got[0].start != 0x400000 || got[0].end != 0x1321000 || got[1].start != 0x1321000 || got[1].rss != 9332 {
		t.Fatalf("releasable mappings %+v, want the text and read-only data only", got)
	}
}
