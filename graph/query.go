package graph

import (
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// parseQuery reads the query of route, and refuses with 400 what the route
// does not understand rather than do default work in its place: a
// parameter not among known, one given twice, a pair holding ";" (which
// does not separate parameters: only "&" does), or a bad escape. A pair
// without "=" is a parameter with an empty value.
func parseQuery(route, raw string, known ...string) (url.Values, error) {
	if raw == "" {
		return nil, nil // reads as empty, and costs no map
	}
	q := url.Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		if strings.Contains(pair, ";") {
			return nil, badRequest(`query: %q holds ";", which does not separate parameters: use "&"`, pair)
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err == nil {
			v, err = url.QueryUnescape(v)
		}
		if err != nil {
			return nil, badRequest("query: %q: %v", pair, err)
		}
		if !slices.Contains(known, key) {
			return nil, badRequest("query: unknown parameter %q: %s takes %s", key, route, takes(known))
		}
		if q.Has(key) {
			return nil, badRequest("query: %s given twice", key)
		}
		q.Set(key, v)
	}
	return q, nil
}

// takes lists the parameters a route knows, for a message.
func takes(known []string) string {
	if len(known) == 0 {
		return "none"
	}
	return strings.Join(known, ", ")
}

// queryMillis reads the duration parameter name of q, in milliseconds (a decimal
// number, so ms=0.5 is 500 µs), defaulting to def and bounded by limit, whose
// name capName the error gives.
func queryMillis(q url.Values, name string, def, limit time.Duration, capName string) (time.Duration, error) {
	s := q.Get(name)
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

// queryInt reads the integer parameter name of q, defaulting to def and
// bounded by limit, whose name capName the error gives.
func queryInt(q url.Values, name string, def, limit int64, capName string) (int64, error) {
	s := q.Get(name)
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
