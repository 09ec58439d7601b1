package graph

import (
	"strconv"
	"sync/atomic"
	"time"
)

// timing adds up where a request's time went, for its Server-Timing
// header. Steps of a parallel script group add from several goroutines.
type timing struct {
	start      time.Time
	work       atomic.Int64 // ns in work steps: busywork, prime, sleep, fork, stress
	downstream atomic.Int64 // ns in downstream calls
}

func (t *timing) addWork(d time.Duration)       { t.work.Add(int64(d)) }
func (t *timing) addDownstream(d time.Duration) { t.downstream.Add(int64(d)) }

// header returns the Server-Timing value
//
//	work;dur=10.012, downstream;dur=20.345, total;dur=30.456
//
// in milliseconds with microsecond digits. work and downstream are sums
// over steps, so steps run in parallel can make them add up to more than
// total, the wall time of the node's handler up to the response headers.
// Filters in front of the handler and the writing of a payload come after
// or before and are not in total; latlab_server_request_duration_seconds
// has them.
func (t *timing) header(now time.Time) string {
	b := make([]byte, 0, 64)
	b = appendMetric(b, "work", time.Duration(t.work.Load()))
	b = append(b, ", "...)
	b = appendMetric(b, "downstream", time.Duration(t.downstream.Load()))
	b = append(b, ", "...)
	b = appendMetric(b, "total", now.Sub(t.start))
	return string(b)
}

// appendMetric appends name;dur=D with D in milliseconds to the nearest
// microsecond, three decimals always, in integer arithmetic.
func appendMetric(b []byte, name string, d time.Duration) []byte {
	b = append(b, name...)
	b = append(b, ";dur="...)
	if d < 0 {
		b = append(b, '-')
		d = -d
	}
	us := (d + time.Microsecond/2) / time.Microsecond
	b = strconv.AppendInt(b, int64(us/1000), 10)
	frac := us % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}
