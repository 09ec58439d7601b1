package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

func TestAttackStatus(t *testing.T) {
	tests := []struct {
		name string
		s    AttackStatus
		want string
	}{
		{"length known", AttackStatus{Progress: record.Progress{Elapsed: 12400 * time.Millisecond, Rate: 1000.4, InFlight: 3, Completed: 12000,
			P99: 2415 * time.Microsecond, P99OK: true, Failed: 1}, Total: 30 * time.Second},
			"12s / 30s (18s left)  rate 1000/s  in flight 3  done 12000  p99 2.415ms  failed 1"},
		{"length unknown, no p99 yet", AttackStatus{Progress: record.Progress{Elapsed: 900 * time.Millisecond, Rate: 2.5}},
			"1s  rate 2.50/s  in flight 0  done 0  p99 n/a  failed 0"},
		{"past its length", AttackStatus{Progress: record.Progress{Elapsed: 31 * time.Second}, Total: 30 * time.Second},
			"31s / 30s (0s left)  rate 0.00/s  in flight 0  done 0  p99 n/a  failed 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestLine checks that each status overwrites the one before on a
// terminal: carriage return, the status, the rest of the line erased.
func TestLine(t *testing.T) {
	var b bytes.Buffer
	l := NewLine[AttackStatus](&b)
	l.Show(AttackStatus{Progress: record.Progress{Elapsed: time.Second, Rate: 100}})
	l.Show(AttackStatus{Progress: record.Progress{Elapsed: 2 * time.Second, Rate: 100}})
	l.Clear()
	want := "\r1s  rate 100/s  in flight 0  done 0  p99 n/a  failed 0\x1b[K" +
		"\r2s  rate 100/s  in flight 0  done 0  p99 n/a  failed 0\x1b[K" +
		"\r\x1b[K"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
