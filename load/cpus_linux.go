package load

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// PinCPUs keeps every thread of this process on the given CPUs. Threads
// made later inherit the mask of the thread that makes them.
func PinCPUs(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("pinning to CPUs: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil {
			return fmt.Errorf("pinning to CPUs %v: %w", cpus, err)
		}
	}
	return nil
}
