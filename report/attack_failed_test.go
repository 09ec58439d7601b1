package report

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// failedRun records n requests, the first failed of which fail as fail
// does (an error class, or a status code when class is OK).
func failedRun(n, failed int, class record.ErrorClass, code int) *record.Result {
	r := record.NewRecorder(time.Now(), record.Config{})
	for i := range n {
		r.Sent()
		s := &record.Sample{Sent: time.Millisecond, Done: 2 * time.Millisecond, Code: 200}
		if i < failed {
			s.Code, s.Error = code, class
			if class != record.OK {
				s.Err = errors.New("x509: certificate signed by unknown authority")
			}
		}
		r.Record(i, s)
	}
	res := r.Stop()
	res.Mode, res.Concurrency = "closed", 2
	return res
}

func attackText(t *testing.T, res *record.Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Attack(&buf, res, "GET https://127.0.0.1/"); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestAttackFailedWarning holds that a run past the 1% failure bound ends
// in a warning naming the main failure, an example and the fix, and that a
// run within it does not.
func TestAttackFailedWarning(t *testing.T) {
	tests := []struct {
		name           string
		n, failed      int
		class          record.ErrorClass
		code           int
		want, wantNone []string
	}{
		{"all tls", 200, 200, record.TLS, 0,
			[]string{"warning: all 200 requests failed: the percentiles above time failures", "All 200 are tls errors (first: x509:", "certificate signed by unknown authority", "--cacert", "--insecure"}, nil},
		{"most 404", 200, 150, record.OK, 404,
			[]string{"warning: 150 of the 200 requests (75.0%) failed", "All 150 got a status that is not a success (codes 200:50 404:150)", "--success"}, nil},
		{"refused past the bound", 1000, 11, record.Refused, 0,
			[]string{"11 of the 1000 requests (1.1%) failed", "All 11 are refused errors", "host and port"}, nil},
		{"at the bound", 1000, 10, record.Refused, 0, nil, []string{"failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := attackText(t, failedRun(tt.n, tt.failed, tt.class, tt.code))
			checkText(t, out, tt.want, tt.wantNone)
		})
	}
}
