//go:build !linux

package load

import "errors"

// CheckRealtime says whether this process may run its event loops as
// real-time threads: only on Linux.
func CheckRealtime() error {
	return errors.New("real-time event loops are Linux's only")
}
