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
	var allowed, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return fmt.Errorf("reading the CPUs this process may use: %w", err)
	}
	for _, c := range cpus {
		if !allowed.IsSet(c) {
			return fmt.Errorf("CPU %d is not one this process may use (it may use %d CPUs)", c, allowed.Count())
		}
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

// AllowedCPUs lists the CPUs the calling thread may run on, in order.
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("reading the CPUs this process may use: %w", err)
	}
	var out []int
	for c := 0; c < len(set)*64 && len(out) < set.Count(); c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out, nil
}
