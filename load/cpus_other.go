//go:build !linux

package load

import "errors"

// PinCPUs is only supported on Linux.
func PinCPUs(cpus []int) error { return errors.New("pinning to CPUs needs Linux") }
