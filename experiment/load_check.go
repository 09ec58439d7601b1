package experiment

import (
	"slices"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/yamlfile"
)

// checkLoad checks that the fields given fit together. Fields the mode
// needs but that are missing are reported at the mode, or at base when the
// mode is the default; fields a variant dropped are not, since what
// dropped them is reported.
func (d *decoder) checkLoad(l *Load, given map[string]entry, dropped map[string]bool, base scope) {
	has := func(key string) bool { _, ok := given[key]; return ok }
	needs := func(key, msg string) {
		line, path := base.line, base.path
		if e, ok := given["mode"]; ok {
			line, path = e.k.Line, e.scope.path
		}
		if !has(key) && !dropped[key] {
			d.addf(min(line, d.lines), join(path, key), "missing: %s", msg)
		}
	}
	refuse := func(key, msg string) {
		if e, ok := given[key]; ok {
			d.errorf(e.k, e.path(), "%s", msg)
		}
	}
	conflict := func(a, b, why string) {
		ea, okA := given[a]
		eb, okB := given[b]
		if !okA || !okB {
			return
		}
		if eb.k.Line < ea.k.Line {
			ea, eb = eb, ea
		}
		d.errorf(eb.k, eb.path(), "cannot be used with %s (line %d)%s", ea.key, ea.k.Line, why)
	}
	if e, ok := given["mode"]; !ok || slices.Contains(load.Modes, l.Mode) && string(l.Mode) == yamlfile.Deref(e.v).Value {
		const onlyOpen = "only open mode takes "
		switch l.Mode {
		case Open:
			needs("rates", "open mode needs rates (requests per second)")
			refuse("concurrency", "open mode takes rates, not concurrency; give mode: closed for a closed loop")
		case Closed:
			needs("concurrency", "closed mode needs concurrency (workers)")
			refuse("rates", "closed mode takes concurrency, not rates; give mode: open for an open loop")
		case Ramp:
			needs("concurrency", "ramp mode needs concurrency (workers to ramp up to)")
			needs("ramp", "ramp mode needs ramp: {burst, every}")
			refuse("rates", "ramp mode takes concurrency, not rates")
		case Sequential:
			const msg = "sequential mode sends one request at a time: it takes neither rates nor concurrency"
			refuse("rates", msg)
			refuse("concurrency", msg)
		}
		if l.Mode != Ramp {
			refuse("ramp", "only ramp mode takes a ramp")
		}
		if l.Mode != Open {
			refuse("arrivals", onlyOpen+"arrivals")
			refuse("max_in_flight", onlyOpen+"max_in_flight")
		}
	}
	conflict("targets", "scenario", "")
	for _, src := range []string{"targets", "scenario"} {
		for _, k := range requestKeys {
			conflict(src, k, ": the "+src+" file gives the requests")
		}
	}
	conflict("body", "body_file", "")
}
