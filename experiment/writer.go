package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/latlab/latlab/store"
)

// A retry says how a commit that fails is tried again: attempts in all,
// the first wait between two of them, doubled after each, and a limit on
// each attempt (0: none, the store's busy timeout bounds its waits for
// another process's lock).
type retry struct {
	attempts int
	wait     time.Duration
	limit    time.Duration
}

// defaultRetry tries a commit five times, 1, 2, 4 and 8 s apart, each
// attempt waiting up to 10 s for another process's lock: about a minute.
var defaultRetry = retry{attempts: 5, wait: time.Second}

// writer commits finished runs from its own goroutine, so that the next
// trial starts while the last one is written (a million raw samples take
// about a second). It holds at most one run in hand: write blocks while an
// earlier run is still being written. A commit that fails is tried again
// as its retry says, and then the run is kept in a side file beside the
// database (store.SavePending): once its load is spent, a run is never
// lost. stored learns each run's fate, from the writer's goroutine, in
// the order the runs were handed over.
type writer struct {
	ctx    context.Context // when it ends, failed commits are not tried again
	db     *store.DB
	exp    store.Experiment
	retry  retry
	stored func(f *finished, side string, err error)
	logf   func(format string, args ...any)
	in     chan *finished
	done   chan struct{}
	shut   bool

	mu    sync.Mutex
	sides []string // side files written
	errs  []error  // why their runs were not committed, or a side file failed
}

// start starts w's goroutine: its fields are set, but for the channels.
func (w *writer) start() *writer {
	if w.retry.attempts < 1 {
		w.retry = defaultRetry
	}
	w.in, w.done = make(chan *finished), make(chan struct{})
	go w.loop()
	return w
}

func (w *writer) loop() {
	defer close(w.done)
	for f := range w.in {
		if f.flushed != nil {
			close(f.flushed)
			continue
		}
		err := w.commit(f)
		var side string
		if err != nil {
			var serr error
			// Stored whole whatever the caller's context: the load is spent.
			side, serr = w.db.SavePending(context.Background(), w.exp, f.info, f.res, f.warm, f.points, f.profiles)
			if serr != nil {
				err = fmt.Errorf("%w; keeping it in a side file failed too: %w", err, serr)
				side = ""
			}
			w.mu.Lock()
			if side != "" {
				w.sides = append(w.sides, side)
			}
			w.errs = append(w.errs, fmt.Errorf("storing trial %d (%s): %w", f.info.Position, f.info.Trial, err))
			w.mu.Unlock()
		}
		w.stored(f, side, err)
	}
}

// commit writes f, trying again as w.retry says while the error may pass
// and w.ctx lasts.
func (w *writer) commit(f *finished) error {
	wait := w.retry.wait
	for i := 1; ; i++ {
		// A run is stored whole even when the experiment is being
		// interrupted: the context must not cancel the write.
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if w.retry.limit > 0 {
			ctx, cancel = context.WithTimeout(ctx, w.retry.limit)
		}
		_, err := w.db.WriteRun(ctx, w.exp.ID, f.info, f.res, f.warm, f.points, f.profiles)
		cancel()
		if err == nil || i == w.retry.attempts || errors.Is(err, store.ErrDuplicateRun) || errors.Is(err, store.ErrNotFound) {
			return err
		}
		w.logf("trial %d: storing it failed (attempt %d of %d), trying again in %s: %v", f.info.Position, i, w.retry.attempts, wait, err)
		select {
		case <-time.After(wait):
		case <-w.ctx.Done():
			return err
		}
		wait *= 2
	}
}

// write hands f to the writer.
func (w *writer) write(f *finished) { w.in <- f }

// flush waits until every run handed over before it has been written,
// or kept in a side file.
func (w *writer) flush() {
	done := make(chan struct{})
	w.in <- &finished{flushed: done}
	<-done
}

// failed reports whether a run handed over could not be committed.
func (w *writer) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.errs) > 0
}

// close waits for every run handed over to be written, and returns a
// *NotStoredError if one could not be committed.
func (w *writer) close() error {
	if !w.shut {
		w.shut = true
		close(w.in)
	}
	<-w.done
	if len(w.errs) == 0 {
		return nil
	}
	return &NotStoredError{Files: w.sides, Err: errors.Join(w.errs...)}
}

// NotStoredError reports runs that were measured but could not be
// committed to the results database, and the side files that keep them.
// Running the plan again imports them (store.ImportPending) once the
// database can be written.
type NotStoredError struct {
	Files []string
	Err   error
}

func (e *NotStoredError) Error() string {
	if len(e.Files) == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v; kept in %s: run the same command again once the database can be written, "+
		"and it imports them", e.Err, strings.Join(e.Files, ", "))
}

func (e *NotStoredError) Unwrap() error { return e.Err }
