package graph

import (
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// allowedList runs a child with SpawnOn and returns the CPU list its
// kernel status shows.
func allowedList(t *testing.T, cpus []int) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	var out strings.Builder
	cmd.Stdout = &out
	if err := SpawnOn(cmd, cpus); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(strings.TrimSpace(out.String()), ":")
	return strings.TrimSpace(list)
}

func TestSpawnOn(t *testing.T) {
	var own unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		t.Skip(err)
	}
	if own.Count() < 2 {
		t.Skip("needs two CPUs")
	}
	last := -1
	for c := range len(own) * 64 {
		if own.IsSet(c) {
			last = c
		}
	}
	before := allowedList(t, nil)
	if got, want := allowedList(t, []int{last}), cpuArg([]int{last}); got != want {
		t.Errorf("child started on CPU %d may run on %q, want %q", last, got, want)
	}
	// The spawning thread has its own mask again: the next child inherits it.
	if after := allowedList(t, nil); after != before {
		t.Errorf("after SpawnOn a plain Spawn gives %q, before it gave %q", after, before)
	}
	if err := SpawnOn(exec.Command("true"), []int{1023}); err == nil {
		t.Error("SpawnOn on a CPU that does not exist started the child")
	}
	if after := allowedList(t, nil); after != before {
		t.Errorf("after a failed SpawnOn a plain Spawn gives %q, before it gave %q", after, before)
	}
}
