package spec

import (
	"slices"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/yamlfile"
)

// checkLoad checks that the fields given fit together: the level fields
// the mode takes (see load.Mode.Takes) and needs, and the fields that
// cannot stand beside each other (see load.Excludes) or that the others
// make meaningless (see load.Settings.Conflicts), but those wrong,
// already reported, on their own. Fields the mode needs but that are
// missing are reported at the mode, or at base when the mode is the
// default; fields a variant dropped are not, since what dropped them is
// reported.
func (d *decoder) checkLoad(l *Load, given map[string]entry, dropped, wrong map[string]bool, base scope) {
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
		switch l.Mode {
		case Open:
			needs("rates", "open mode needs rates (requests per second)")
		case Closed:
			needs("concurrency", "closed mode needs concurrency (workers)")
		case Ramp:
			needs("concurrency", "ramp mode needs concurrency (workers to ramp up to)")
			needs("ramp", "ramp mode needs ramp: {burst, every}")
		}
		for _, key := range load.LevelOptions {
			if e, ok := given[key]; ok && !l.Mode.Takes(key) {
				d.errorf(e.k, e.path(), "%s", refusal(l.Mode, key))
			}
		}
	}
	for i, a := range loadKeys {
		if slices.Contains(load.LevelOptions, a) || wrong[a] {
			continue
		}
		for _, b := range load.Excludes(a) {
			if slices.Index(loadKeys, b) > i && !wrong[b] {
				conflict(a, b, gives(a, b))
			}
		}
	}
	var keys []string
	for key := range given {
		keys = append(keys, key)
	}
	for _, p := range load.Problems(l.Settings().Conflicts(keys...)) {
		if e, ok := given[p.Option]; ok && p.Option == "streams" && !wrong[p.Option] {
			d.streams = append(d.streams, e) // gRPC's too: known once the variants are read
			continue
		}
		if e, ok := given[p.Option]; ok && !wrong[p.Option] {
			d.errorf(e.k, e.path(), "%s", p.Text(load.Ref.String))
		}
	}
}

// refusal says why mode m does not take key, one of load.LevelOptions.
func refusal(m Mode, key string) string {
	switch {
	case m == Sequential && (key == "rates" || key == "concurrency"):
		return "sequential mode sends one request at a time: it takes neither rates nor concurrency"
	case m == Open && key == "concurrency":
		return "open mode takes rates, not concurrency; give mode: closed for a closed loop"
	case m == Closed && key == "rates":
		return "closed mode takes concurrency, not rates; give mode: open for an open loop"
	case m == Ramp && key == "rates":
		return "ramp mode takes concurrency, not rates"
	case key == "ramp":
		return "only ramp mode takes a ramp"
	}
	return "only open mode takes " + key
}

// gives returns why a and b cannot stand beside each other when one of
// them is a file that gives the requests, or "".
func gives(a, b string) string {
	for _, src := range []string{"targets", "scenario"} {
		if a == src && slices.Contains(load.RequestOptions, b) || b == src && slices.Contains(load.RequestOptions, a) {
			return ": the " + src + " file gives the requests"
		}
	}
	return ""
}
