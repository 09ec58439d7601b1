package experiment

import (
	"context"
	"fmt"

	"github.com/latlab/latlab/store"
)

// writer commits finished runs from its own goroutine, so that the next
// trial starts while the last one is written (a million raw samples take
// about a second). It holds at most one run in hand: write blocks while an
// earlier run is still being written.
type writer struct {
	db    *store.DB
	expID int64
	in    chan *finished
	done  chan error
	err   error
	shut  bool
}

func newWriter(db *store.DB, expID int64) *writer {
	w := &writer{db: db, expID: expID, in: make(chan *finished), done: make(chan error, 1)}
	go w.loop()
	return w
}

func (w *writer) loop() {
	var first error
	for f := range w.in {
		if first != nil {
			continue
		}
		// A run is stored whole even when the experiment is being
		// interrupted: the context must not cancel the write.
		_, err := w.db.WriteRun(context.Background(), w.expID, f.info, f.res, f.warm, f.points, f.profiles)
		if err != nil {
			first = fmt.Errorf("storing trial %d (%s): %w", f.info.Position, f.info.Trial, err)
		}
	}
	w.done <- first
}

// write hands f to the writer and reports an error of an earlier write.
func (w *writer) write(f *finished) error {
	select {
	case err := <-w.done: // the loop ended: only after an error
		w.err, w.shut = err, true
		return err
	default:
	}
	w.in <- f
	return nil
}

// close waits for every run handed over to be written.
func (w *writer) close() error {
	if !w.shut {
		w.shut = true
		close(w.in)
		w.err = <-w.done
	}
	return w.err
}
