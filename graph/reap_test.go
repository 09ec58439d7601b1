package graph

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reapParent makes this test binary stand for latlab: it starts a reaper
// of the rest of its arguments, prints the reaper's pid, and waits to be
// killed.
const reapParent = "__reap_parent"

func parentOfReaper(argv []string) int {
	self, err := os.Executable()
	if err != nil {
		return 1
	}
	cmd := ReapCmd(self, argv...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := Spawn(cmd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(cmd.Process.Pid)
	_ = cmd.Wait()
	return 0
}

// marked returns the pids of the sleepers whose argument holds mark.
func marked(mark string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := strings.Split(string(b), "\x00")
		if err != nil || len(args) < 2 || !strings.HasSuffix(args[0], "sleep") || !strings.Contains(args[1], mark) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			continue // a zombie: gone but for its parent's wait
		}
		out = append(out, pid)
	}
	return out
}

// waitMarked waits until n processes hold mark, or none when n is 0, for
// at most limit, and returns how many there are then.
func waitMarked(mark string, n int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		got := len(marked(mark))
		if got == n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// started starts cmd, whose sleepers hold mark, and waits for tree's four
// of them; whatever of them is left goes when the test ends.
func started(t *testing.T, cmd *exec.Cmd, start func(*exec.Cmd) error, mark string) {
	t.Helper()
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, p := range marked(mark) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if got := waitMarked(mark, 4, time.Minute); got != 4 {
		t.Fatalf("%d of the tree's 4 sleepers started", got)
	}
}

// tree is a start command that leaves three sleepers, two of them out of
// its process group, one of those in a session of its own, and sleeps
// itself; mark tells them apart from any other process.
func tree(mark string) []string {
	script := fmt.Sprintf(`sleep 300.%[1]s & (sleep 301.%[1]s &) ; setsid sleep 302.%[1]s & exec sleep 303.%[1]s`, mark)
	return []string{"sh", "-c", script}
}

// TestReapOnParentDeath kills latlab's stand-in with SIGKILL: every
// process its start command left, in its group or not, is gone within a
// second or two.
func TestReapOnParentDeath(t *testing.T) {
	mark := strconv.Itoa(rand.IntN(1e9))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(self, append([]string{reapParent}, tree(mark)...)...)
	parent.Stderr = os.Stderr
	started(t, parent, (*exec.Cmd).Start, mark)
	_ = parent.Process.Kill()
	_ = parent.Wait()
	if left := waitMarked(mark, 0, ReapGrace+10*time.Second); left != 0 {
		t.Errorf("%d processes of the start command outlived latlab's SIGKILL", left)
	}
}

// TestReapOnStop stops a reaper as latlab stops a variant (SIGTERM): the
// whole tree ends, and the reaper after it, with SIGTERM's status; and a
// command that ends by itself takes what it left with it, its own status
// the reaper's.
func TestReapOnStop(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mark := strconv.Itoa(rand.IntN(1e9))
	cmd := ReapCmd(self, tree(mark)...)
	started(t, cmd, Spawn, mark)
	_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("the stopped reaper: %v, want exit %d", err, 128+int(syscall.SIGTERM))
	}
	if left := len(marked(mark)); left != 0 {
		t.Errorf("%d processes left once the reaper exited", left)
	}

	mark = strconv.Itoa(rand.IntN(1e9))
	cmd = ReapCmd(self, "sh", "-c", fmt.Sprintf("setsid sleep 304.%s & exit 3", mark))
	if err := Spawn(cmd); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("a command that exits 3: the reaper %v, want exit 3", err)
	}
	if left := len(marked(mark)); left != 0 {
		t.Errorf("%d processes the command left outlived it", left)
	}
}
