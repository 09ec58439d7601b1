package graph

import (
	"fmt"
	"net/http"
	"time"
)

// Caps bound what requests may ask a node for, so that malformed or
// hostile input cannot pin a CPU for an hour or fill memory, whatever the
// concurrency. A request beyond a cap is answered with a message naming
// the cap: 400 for a query parameter over it, 413 for a body over MaxBody
// (refused at once when its Content-Length says so), 507 when an object
// would go beyond MaxObjects or MaxStored, 429 beyond MaxLoads, and 503
// with Retry-After for an upload that found no free one of MaxUploads
// within MaxUploadWait.
//
// Object bytes, stored or being received, never exceed MaxStored: an
// upload reserves its Content-Length, or MaxBody when it has none, before
// its body is read, so a node's memory is bounded by MaxStored plus what
// it needs besides its objects. Each zero field takes its default
// (DefaultCaps); a negative one is an error.
type Caps struct {
	MaxBusywork time.Duration // longest ?ms= of /busywork; 0 means 10s
	MaxSleep    time.Duration // longest ?ms= of /sleep; 0 means 60s
	MaxPrime    int64         // largest ?max= of /prime; 0 means 100,000,000
	MaxPayload  int64         // largest payload a script writes; 0 means 64 MiB
	MaxObjects  int           // objects stored at once; 0 means 100,000
	MaxLoads    int           // load jobs running at once on a node; 0 means 4
	MaxBody     int64         // largest request body, and downstream body read; 0 means 64 MiB
	MaxStored   int64         // bytes of all objects together; 0 means 1 GiB
	MaxUploads  int           // object uploads read at once; 0 means 8
	// MaxUploadWait is the longest an upload waits for one of MaxUploads
	// before its 503; 0 means 10s.
	MaxUploadWait time.Duration
}

// DefaultCaps returns the caps a node takes for fields left zero, which
// latlab serve runs with.
func DefaultCaps() Caps {
	return Caps{
		MaxBusywork: 10 * time.Second,
		MaxSleep:    60 * time.Second,
		MaxPrime:    100_000_000,
		MaxPayload:  64 << 20,
		MaxObjects:  100_000,
		MaxLoads:    4,
		MaxBody:     64 << 20,
		MaxStored:   1 << 30,
		MaxUploads:  8,

		MaxUploadWait: 10 * time.Second,
	}
}

// withDefaults returns c with every zero field set to its default.
func (c Caps) withDefaults() (Caps, error) {
	if c.MaxBusywork < 0 || c.MaxSleep < 0 || c.MaxPrime < 0 || c.MaxPayload < 0 ||
		c.MaxObjects < 0 || c.MaxLoads < 0 || c.MaxBody < 0 || c.MaxStored < 0 || c.MaxUploads < 0 || c.MaxUploadWait < 0 {
		return c, fmt.Errorf("caps: negative cap in %+v", c)
	}
	d := DefaultCaps()
	setDefault(&c.MaxBusywork, d.MaxBusywork)
	setDefault(&c.MaxSleep, d.MaxSleep)
	setDefault(&c.MaxPrime, d.MaxPrime)
	setDefault(&c.MaxPayload, d.MaxPayload)
	setDefault(&c.MaxObjects, d.MaxObjects)
	setDefault(&c.MaxLoads, d.MaxLoads)
	setDefault(&c.MaxBody, d.MaxBody)
	setDefault(&c.MaxStored, d.MaxStored)
	setDefault(&c.MaxUploads, d.MaxUploads)
	setDefault(&c.MaxUploadWait, d.MaxUploadWait)
	return c, nil
}

func setDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// A requestError is a failure the client caused or can act on: it carries
// the status to answer with and a message naming the parameter or cap.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func statusError(status int, format string, args ...any) error {
	return &requestError{status, fmt.Sprintf(format, args...)}
}
