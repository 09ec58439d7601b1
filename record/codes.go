package record

import (
	"fmt"
	"strconv"
	"strings"
)

// A status code is an HTTP status (100 to 999) or a gRPC call's status,
// counted as GRPCCode(c): 1000 + c, above every HTTP status, so that one
// result (a scenario may mix HTTP and gRPC steps) never confuses the two.
const (
	grpcBase = 1000
	maxCode  = grpcBase + len(grpcNames) // bounds the codes counted one by one
)

// grpcNames are the gRPC status codes' names, as the gRPC specification
// spells them, indexed by code.
var grpcNames = [...]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

// GRPCCode returns the status code under which a gRPC call that ended
// with status c is counted; a code past the specification's is UNKNOWN's.
func GRPCCode(c uint32) int {
	if int(c) >= len(grpcNames) {
		c = 2
	}
	return grpcBase + int(c)
}

// GRPCOK is the code of a gRPC call that succeeded.
const GRPCOK = grpcBase

// IsGRPC reports whether code is a gRPC call's status.
func IsGRPC(code int) bool { return code >= grpcBase && code < maxCode }

// CodeName names a status code: "200", or a gRPC status's name, "OK",
// "UNAVAILABLE".
func CodeName(code int) string {
	if IsGRPC(code) {
		return grpcNames[code-grpcBase]
	}
	return strconv.Itoa(code)
}

// A CodeSet is a set of status codes. The zero value is empty.
type CodeSet struct {
	bits [maxCode/64 + 1]uint64
}

// DefaultSuccess is the set used when none is given: every HTTP status
// below 400, and gRPC's OK.
func DefaultSuccess() CodeSet {
	var s CodeSet
	for c := 100; c < 400; c++ {
		s.Add(c)
	}
	s.Add(GRPCOK)
	return s
}

// ParseCodeSet reads a comma-separated list of HTTP statuses, their
// ranges and gRPC status names, such as "200-299,304" or "OK,NOT_FOUND".
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
			if IsGRPC(a) {
				return set, fmt.Errorf("%q: gRPC statuses are named one by one, not in ranges", part)
			}
			if b, err = parseCode(hi); err != nil {
				return set, err
			}
			if IsGRPC(b) {
				return set, fmt.Errorf("%q: gRPC statuses are named one by one, not in ranges", part)
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
	s = strings.TrimSpace(s)
	for i, name := range grpcNames {
		if strings.EqualFold(s, name) {
			return grpcBase + i, nil
		}
	}
	c, err := strconv.Atoi(s)
	if err != nil || c < 100 || c > 999 {
		return 0, fmt.Errorf("%q is not a status code (100 to 999, or a gRPC status such as OK or UNAVAILABLE)", s)
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
