package main

import (
	"errors"
	"sync"
)

// ipam hands out the numbers 2 to 254 of a slot's pod addresses. It goes
// round the range rather than reusing the lowest free number, so that a
// pod's address is not another's a moment after it was deleted. It is
// safe for concurrent use.
type ipam struct {
	mu   sync.Mutex
	used [256]bool
	next int
}

// take returns a free number.
func (a *ipam) take() (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for range 253 {
		n := a.next%253 + 2
		a.next++
		if !a.used[n] {
			a.used[n] = true
			return n, nil
		}
	}
	return 0, errors.New("no pod address left: 253 pods already run in this cluster")
}

// give returns n to the pool.
func (a *ipam) give(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.used[n] = false
}
