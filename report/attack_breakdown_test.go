package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// TestAttackBreakdownText checks the breakdown of service time: a row per
// phase that was measured, with its samples, and no table when none was;
// a server stream's reply gaps have their own row.
func TestAttackBreakdownText(t *testing.T) {
	text := func(breakdown bool) string {
		t.Helper()
		r := record.NewRecorder(time.Now(), record.Config{})
		for i := range 200 {
			s := record.Sample{Sent: time.Millisecond, Done: 5 * time.Millisecond, Code: 200}
			if breakdown {
				s.Wait, s.Read = 3*time.Millisecond, 500*time.Microsecond
				if i < 2 {
					s.Connect = 200 * time.Microsecond
				}
				if i < 10 { // a stream of three replies, 200 µs apart
					s.ReplyGaps = []time.Duration{200 * time.Microsecond, 200 * time.Microsecond}
				}
			}
			r.Sent()
			r.Record(i, &s)
		}
		res := r.Stop()
		res.Mode, res.Concurrency = "closed", 2
		var buf bytes.Buffer
		if err := Attack(&buf, res, "GET http://127.0.0.1/"); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	out := text(true)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\nService time breakdown\n +samples +mean +p50 +p99 +max\n`),
		// Two connections are too few for a p99; 200 samples give one of
		// low confidence.
		regexp.MustCompile(`connect \(new connections\) +2 +200µs +~200µs +n/a +200µs\n`),
		regexp.MustCompile(`wait \(request sent → first byte\) +200 +(2\.999|3\.000)ms +3\.000ms +~3\.000ms +3\.000ms\n`),
		regexp.MustCompile(`read \(first byte → last byte\) +200 +500µs +500µs +~500µs +500µs\n`),
		regexp.MustCompile(`reply gap \(reply → next reply\) +20 +200µs +200µs +n/a +200µs\n`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if out := text(false); strings.Contains(out, "reply gap") {
		t.Errorf("a reply gap row without a stream:\n%s", out)
	}
	if strings.Contains(out, "TLS handshake") {
		t.Errorf("a TLS row without a handshake:\n%s", out)
	}
	if out := text(false); strings.Contains(out, "breakdown") {
		t.Errorf("a breakdown table with nothing measured:\n%s", out)
	}
}
