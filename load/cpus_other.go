//go:build !linux

package load

import "errors"

// PinCPUs is only supported on Linux.
func PinCPUs(cpus []int) error { return errors.New("pinning to CPUs needs Linux") }

// AllowedCPUs is only supported on Linux.
func AllowedCPUs() ([]int, error) { return nil, errors.New("reading CPU affinity needs Linux") }
