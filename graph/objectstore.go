package graph

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// objectStore is a node's in-memory key-value store behind /objects: a
// stand-in for the state a real service reads and writes. It is local to
// the node and never forwarded.
//
// Its memory is bounded by its caps at any concurrency: an upload reserves
// the bytes it may hold before its body is read, so that the bytes stored
// and the bytes being received together never exceed MaxStored, and at
// most MaxUploads bodies are read at once.
type objectStore struct {
	mu       sync.RWMutex
	m        map[string]object
	bytes    int64 // of all data stored
	reserved int64 // promised to uploads being received

	uploads chan struct{} // one token per upload being read: MaxUploads
}

type object struct {
	data        [][]byte // read in pieces, so that a body never grows by copying
	size        int64
	contentType string
}

func (s *objectStore) init(caps Caps) {
	s.m = map[string]object{}
	s.uploads = make(chan struct{}, caps.MaxUploads)
}

// check refuses, before any byte of a body is read, an upload that would
// be refused once read: a create of a name that exists, or a new name
// beyond MaxObjects. store checks again.
func (s *objectStore) check(name string, replace bool, caps Caps) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.checkLocked(name, replace, caps)
}

func (s *objectStore) checkLocked(name string, replace bool, caps Caps) error {
	_, exists := s.m[name]
	if exists && !replace {
		return statusError(http.StatusConflict, "object %q exists", name)
	}
	if !exists && len(s.m) >= caps.MaxObjects {
		return statusError(http.StatusInsufficientStorage, "objects: %d stored, MaxObjects is %d", len(s.m), caps.MaxObjects)
	}
	return nil
}

// reserve sets n bytes aside for an upload, or answers 507 when the bytes
// stored and reserved leave less than n under MaxStored. An object being
// replaced counts until its replacement is stored: both are in memory
// while the new one is read.
func (s *objectStore) reserve(n int64, caps Caps) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes+s.reserved+n > caps.MaxStored {
		return statusError(http.StatusInsufficientStorage,
			"objects: %d bytes stored and %d being received, %d more would be over MaxStored (%d)",
			s.bytes, s.reserved, n, caps.MaxStored)
	}
	s.reserved += n
	return nil
}

// release gives back a reservation of n bytes that stored nothing.
func (s *objectStore) release(n int64) {
	s.mu.Lock()
	s.reserved -= n
	s.mu.Unlock()
}

// acquire takes one of the MaxUploads slots, waiting for one at most wait
// or until ctx ends, and reports whether it got it. release returns it.
func (s *objectStore) acquire(ctx context.Context, wait time.Duration) bool {
	select {
	case s.uploads <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s.uploads <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (s *objectStore) releaseSlot() { <-s.uploads }

// store saves o under name in place of a reservation of reserved ≥ o.size
// bytes, and returns the status to answer. The reservation ends either way.
func (s *objectStore) store(name string, o object, replace bool, reserved int64, caps Caps) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved -= reserved
	if err := s.checkLocked(name, replace, caps); err != nil {
		return 0, err
	}
	old, exists := s.m[name]
	s.m[name] = o
	s.bytes += o.size - old.size
	if exists {
		return http.StatusOK, nil
	}
	return http.StatusCreated, nil
}

// get returns the object called name.
func (s *objectStore) get(name string) (object, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o, ok := s.m[name]
	return o, ok
}

// delete removes the object called name and reports whether it was there.
func (s *objectStore) delete(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.m[name]
	if ok {
		delete(s.m, name)
		s.bytes -= o.size
	}
	return ok
}

// names returns the names stored, sorted.
func (s *objectStore) names() []string {
	s.mu.RLock()
	names := make([]string, 0, len(s.m))
	for k := range s.m {
		names = append(names, k)
	}
	s.mu.RUnlock()
	slices.Sort(names)
	return names
}

// Pieces of a body of unknown length grow from minPiece to maxPiece bytes:
// a small body takes little, a large one few pieces, and memory follows
// the bytes received.
const (
	minPiece = 4 << 10
	maxPiece = 1 << 20
)

// readBody reads r to its end: with size ≥ 0 (the Content-Length) into one
// piece of that size, else into pieces, the last cut to its length. It
// returns the pieces and their total length.
func readBody(r io.Reader, size int64) ([][]byte, int64, error) {
	if size == 0 {
		return nil, 0, nil
	}
	if size > 0 {
		b := make([]byte, size)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, 0, err
		}
		return [][]byte{b}, size, nil
	}
	var pieces [][]byte
	var total int64
	for n := minPiece; ; n = min(2*n, maxPiece) {
		b := make([]byte, n)
		k, err := io.ReadFull(r, b)
		if k > 0 {
			if k < n {
				b = slices.Clone(b[:k])
			}
			pieces = append(pieces, b)
			total += int64(k)
		}
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return pieces, total, nil
		default:
			return nil, 0, err
		}
	}
}
