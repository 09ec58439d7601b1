package record

import (
	"strings"
	"testing"
)

// FuzzParseCodeSet holds ParseCodeSet (--success, success:) to sets of
// status codes: what it accepts is a set of codes from 100 to 999 and gRPC
// statuses, not empty, the union of its comma-separated parts, that reads back the same
// listed code by code; what it refuses gets a message.
func FuzzParseCodeSet(f *testing.F) {
	for _, s := range []string{
		"200", "200-299,304", "100-399", " 200 , 201 ", "200-200", "999", "100-999", "404,404",
		"", " ", ",", "200,", "99", "1000", "299-200", "2xx", "200-", "-200", "200--300",
		"+200", "200-299-300", "0200", "9223372036854775808",
		"OK", "ok,UNAVAILABLE", "OK-UNKNOWN", "200-OK", "200,NOT_FOUND", "DATA_LOSS-OK",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := ParseCodeSet(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseCodeSet(%q): empty error", s)
			}
			return
		}
		var codes []string
		for c := range maxCode {
			if set.Has(c) {
				if c < 100 {
					t.Fatalf("ParseCodeSet(%q) holds %d", s, c)
				}
				codes = append(codes, CodeName(c))
			}
		}
		if len(codes) == 0 {
			t.Fatalf("ParseCodeSet(%q): no codes and no error", s)
		}
		if set.Has(-1) || set.Has(maxCode) {
			t.Fatalf("ParseCodeSet(%q) holds a code out of range", s)
		}
		listed := strings.Join(codes, ",")
		if back, err := ParseCodeSet(listed); err != nil || back != set {
			t.Fatalf("ParseCodeSet(%q) listed as %q reads back otherwise: %v", s, listed, err)
		}
		var union CodeSet
		for _, part := range strings.Split(s, ",") {
			p, err := ParseCodeSet(part)
			if err != nil {
				t.Fatalf("ParseCodeSet(%q) succeeds, but its part %q does not: %v", s, part, err)
			}
			for i := range union.bits {
				union.bits[i] |= p.bits[i]
			}
		}
		if union != set {
			t.Fatalf("ParseCodeSet(%q) is not the union of its parts", s)
		}
	})
}
