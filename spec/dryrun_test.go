package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestWritePlanGolden(t *testing.T) {
	defer func(f func() int) { estimateCPUs = f }(estimateCPUs)
	estimateCPUs = func() int { return 2 } // the estimate of a closed loop depends on it
	tests := []struct{ name, spec string }{
		{"open", `version: 1
name: sweep
variants:
  - {name: plain, graph: graphs/chain.yaml}
  - {name: filter, graph: graphs/chain-filter.yaml}
  - {name: poisson, target: 'http://127.0.0.1:9000/', load: {arrivals: poisson}}
load: {rates: [100, 250.5], duration: 30s}
warmup: {duration: 5s, rate: 50%}
runs: 2
`},
		{"closed", `version: 1
name: table
variants:
  - {name: root, graph: graphs/chain.yaml}
  - {name: busywork, graph: graphs/chain.yaml, load: {path: '/busywork?ms=1'}}
load: {mode: closed, concurrency: [50, 300], requests: 100000}
order: grouped
`},
		{"ramp", `version: 1
name: apf
variants:
  - {name: fq, target: 'http://127.0.0.1:9000/'}
  - {name: seq, target: 'http://127.0.0.1:9000/', load: {mode: sequential, requests: 500}}
load: {mode: ramp, concurrency: [600], ramp: {burst: 300, every: 30s}, duration: 2m, requests: 1000000}
warmup: {duration: 10s, rate: 20}
restart: per-rate
order: grouped
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.spec)
			var b strings.Builder
			if err := s.WritePlan(&b, s.Plan(3)); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "dryrun/"+tt.name+".golden", b.String())
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWritePlanError(t *testing.T) {
	s := planSpec(t, 1, "grouped")
	if err := s.WritePlan(failWriter{}, s.Plan(1)); err == nil || err.Error() != "disk full" {
		t.Errorf("error %v, want disk full", err)
	}
}
