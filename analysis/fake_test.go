package analysis

import (
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/store"
)

// fakeRun is a done run of variant at level whose every quantile is base
// times 1, 1.5, 2, 3, 4 and 5 in Stats order, plus rep microseconds.
func fakeRun(variant string, l Level, rep int, base time.Duration) Run {
	r := Run{ID: int64(rep), Trial: store.Trial{Variant: variant, Level: l, Rep: rep}, Status: store.Done}
	for i, s := range spec.Stats {
		f := []float64{1, 1.5, 2, 3, 4, 5}[i]
		r.Latency = append(r.Latency, Value{Stat: s, Latency: time.Duration(f*float64(base)) + time.Duration(rep)*time.Microsecond, OK: true})
	}
	return r
}

var (
	r100 = Level{Rate: 100}
	r200 = Level{Rate: 200}
	c8   = Level{Concurrency: 8}
)
