package record

import (
	"fmt"
	"strconv"
	"strings"
)

// maxCode bounds the status codes counted one by one; a valid status code
// has three digits.
const maxCode = 1000

// A CodeSet is a set of HTTP status codes. The zero value is empty.
type CodeSet struct {
	bits [maxCode/64 + 1]uint64
}

// DefaultSuccess is the set used when none is given: every code below 400.
func DefaultSuccess() CodeSet {
	var s CodeSet
	for c := 100; c < 400; c++ {
		s.Add(c)
	}
	return s
}

// ParseCodeSet reads a comma-separated list of codes and ranges, such as
// "200-299,304".
func ParseCodeSet(s string) (CodeSet, error) {
	var set CodeSet
	if strings.TrimSpace(s) == "" {
		return set, fmt.Errorf("empty status code list")
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseCode(lo)
		if err != nil {
			return set, err
		}
		b := a
		if isRange {
			if b, err = parseCode(hi); err != nil {
				return set, err
			}
			if b < a {
				return set, fmt.Errorf("status code range %q runs backwards", part)
			}
		}
		for c := a; c <= b; c++ {
			set.Add(c)
		}
	}
	return set, nil
}

func parseCode(s string) (int, error) {
	c, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || c < 100 || c > 999 {
		return 0, fmt.Errorf("%q is not a status code (100 to 999)", s)
	}
	return c, nil
}

// Add puts code in the set.
func (s *CodeSet) Add(code int) {
	if code >= 0 && code < maxCode {
		s.bits[code/64] |= 1 << (code % 64)
	}
}

// Has reports whether code is in the set.
func (s *CodeSet) Has(code int) bool {
	return code >= 0 && code < maxCode && s.bits[code/64]&(1<<(code%64)) != 0
}
