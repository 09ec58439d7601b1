package spec

import (
	"strconv"
	"strings"
)

// Diff returns what changed from old to new, one field per line, such as
// "load.rates: [100 200] → [100 200 400]", or "" when they are the same.
// See DiffCanonical to compare with a spec known only by its stored
// canonical form.
func Diff(old, new *Spec) string {
	return DiffCanonical(old.Canonical(), new.Canonical())
}

// DiffCanonical is Diff of two canonical forms (see Spec.Canonical). Fields
// of old come first in their order, then fields only new has; a field one
// side lacks shows as (none), a changed file as its content's change.
func DiffCanonical(old, new string) string {
	ok, okeys := parseCanonical(old)
	nk, nkeys := parseCanonical(new)
	var b strings.Builder
	line := func(key, from, to string) {
		if strings.HasPrefix(key, "files[") {
			from, to = short(from), short(to)
		}
		b.WriteString(key + ": " + from + " → " + to + "\n")
	}
	for _, k := range okeys {
		to, found := nk[k]
		if !found {
			to = none
		}
		if from := ok[k]; from != to {
			line(k, from, to)
		}
	}
	for _, k := range nkeys {
		if _, found := ok[k]; !found {
			line(k, none, nk[k])
		}
	}
	return b.String()
}

// none stands for a field one side of a diff lacks.
const none = "(none)"

// short abbreviates a hash to 12 digits.
func short(h string) string {
	if h == none {
		return h
	}
	return h[:min(len(h), 12)]
}

// parseCanonical splits a canonical form into its fields and their order.
func parseCanonical(s string) (map[string]string, []string) {
	m := map[string]string{}
	var keys []string
	for _, l := range strings.Split(s, "\n") {
		k, v, found := strings.Cut(l, ": ")
		if !found {
			continue
		}
		if _, dup := m[k]; !dup {
			keys = append(keys, k)
		}
		m[k] = v
	}
	return m, keys
}

// runsField reports whether key, a field of the canonical form, is the
// runs: field or one of its parts (runs.min, runs.max, ...).
func runsField(key string) bool { return key == "runs" || strings.HasPrefix(key, "runs.") }

// WithoutRuns returns the canonical form c without its runs: field: what
// a spec must keep to go on with an experiment.
func WithoutRuns(c string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(c, "\n") {
		if k, _, ok := strings.Cut(l, ": "); ok && runsField(k) {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// RunsChange says how the runs: field changed from the canonical form
// old to now, on one line.
func RunsChange(old, now string) string {
	only := func(c string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(c, "\n") {
			if k, _, ok := strings.Cut(l, ": "); ok && runsField(k) {
				b.WriteString(l)
			}
		}
		return b.String()
	}
	return strings.ReplaceAll(strings.TrimSuffix(DiffCanonical(only(old), only(now)), "\n"), "\n", ", ")
}

// RunsCeiling returns the most repetitions of a cell the canonical form
// c plans: its runs, or the max of runs: auto; 1, the default, when it
// gives neither.
func RunsCeiling(c string) int {
	fields, _ := parseCanonical(c)
	for _, k := range []string{"runs", "runs.max"} {
		if n, err := strconv.Atoi(fields[k]); err == nil {
			return n
		}
	}
	return 1
}
