package graph

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Caps bound what one request may ask a node for, so that malformed or
// hostile input cannot pin a CPU for an hour or fill memory. A request
// beyond a cap is answered 400 with a message naming the cap. Each zero
// field takes its default; a negative one is an error.
type Caps struct {
	MaxBusywork time.Duration // longest ?ms= of /busywork; 0 means 10s
	MaxSleep    time.Duration // longest ?ms= of /sleep; 0 means 60s
	MaxPrime    int64         // largest ?max= of /prime; 0 means 100,000,000
	MaxPayload  int64         // largest payload a script writes; 0 means 64 MiB
	MaxObjects  int           // objects stored at once; 0 means 100,000
	MaxLoads    int           // load jobs running at once on a node; 0 means 4
	MaxBody     int64         // largest request body, and downstream body read; 0 means 64 MiB
	MaxStored   int64         // bytes of all objects together; 0 means 1 GiB
}

// withDefaults returns c with every zero field set to its default.
func (c Caps) withDefaults() (Caps, error) {
	if c.MaxBusywork < 0 || c.MaxSleep < 0 || c.MaxPrime < 0 || c.MaxPayload < 0 ||
		c.MaxObjects < 0 || c.MaxLoads < 0 || c.MaxBody < 0 || c.MaxStored < 0 {
		return c, fmt.Errorf("caps: negative cap in %+v", c)
	}
	setDefault(&c.MaxBusywork, 10*time.Second)
	setDefault(&c.MaxSleep, 60*time.Second)
	setDefault(&c.MaxPrime, 100_000_000)
	setDefault(&c.MaxPayload, 64<<20)
	setDefault(&c.MaxObjects, 100_000)
	setDefault(&c.MaxLoads, 4)
	setDefault(&c.MaxBody, 64<<20)
	setDefault(&c.MaxStored, 1<<30)
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

// queryMillis reads the duration parameter name, in milliseconds (a decimal
// number, so ms=0.5 is 500 µs), defaulting to def and bounded by limit, whose
// name capName the error gives.
func queryMillis(r *http.Request, name string, def, limit time.Duration, capName string) (time.Duration, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		if def > limit {
			return 0, badRequest("%s: default %v is over %s (%v)", name, def, capName, limit)
		}
		return def, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, badRequest("%s: %q is not a number of milliseconds", name, s)
	}
	if f < 0 {
		return 0, badRequest("%s: %q is negative", name, s)
	}
	if f > float64(limit)/float64(time.Millisecond) {
		return 0, badRequest("%s: %s ms is over %s (%v)", name, s, capName, limit)
	}
	return time.Duration(f * float64(time.Millisecond)), nil
}

// queryInt reads the integer parameter name, defaulting to def and bounded
// by limit, whose name capName the error gives.
func queryInt(r *http.Request, name string, def, limit int64, capName string) (int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		if def > limit {
			return 0, badRequest("%s: default %d is over %s (%d)", name, def, capName, limit)
		}
		return def, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && s[0] != '-' {
			return 0, badRequest("%s: %s is over %s (%d)", name, s, capName, limit)
		}
		return 0, badRequest("%s: %q is not an integer", name, s)
	}
	if v < 0 {
		return 0, badRequest("%s: %d is negative", name, v)
	}
	if v > limit {
		return 0, badRequest("%s: %d is over %s (%d)", name, v, capName, limit)
	}
	return v, nil
}
