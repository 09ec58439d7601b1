package graph

import (
	"bytes"
	"io"
	"sync"
)

// Prefixed returns a writer that writes each line to w behind "name| ".
// Writers made for the same w share a lock so that lines never interleave.
func Prefixed(w io.Writer, name string) io.Writer {
	if w == io.Discard {
		return w
	}
	return &prefixWriter{w: w, prefix: []byte(name + "| "), mu: lockFor(w)}
}

var (
	locksMu sync.Mutex
	locks   = map[io.Writer]*sync.Mutex{}
)

func lockFor(w io.Writer) *sync.Mutex {
	locksMu.Lock()
	defer locksMu.Unlock()
	if m, ok := locks[w]; ok {
		return m
	}
	m := &sync.Mutex{}
	locks[w] = m
	return m
}

type prefixWriter struct {
	w      io.Writer
	prefix []byte
	mu     *sync.Mutex
	buf    []byte // a partial line
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.mu.Lock()
		_, err := p.w.Write(append(append([]byte{}, p.prefix...), p.buf[:i+1]...))
		p.mu.Unlock()
		p.buf = p.buf[i+1:]
		if err != nil {
			return len(b), err
		}
	}
}
