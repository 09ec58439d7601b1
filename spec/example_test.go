package spec_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
)

func ExampleSpec_Plan() {
	sp, err := spec.ParseSpec("sweep.yaml", []byte(`
version: 1
name: sweep
variants:
  - {name: plain, target: 'http://127.0.0.1:9000/'}
  - {name: proxy, target: 'http://127.0.0.1:9001/'}
load: {rates: [100, 200], duration: 10s}
runs: 2
`), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range sp.Plan(1) {
		fmt.Printf("%d %s %g/s rep %d\n", t.Position, t.Variant, t.Rate, t.Rep)
	}
	// Output:
	// 1 plain 100/s rep 1
	// 2 proxy 100/s rep 1
	// 3 plain 200/s rep 1
	// 4 proxy 200/s rep 1
	// 5 proxy 200/s rep 2
	// 6 plain 200/s rep 2
	// 7 plain 100/s rep 2
	// 8 proxy 100/s rep 2
}

func ExampleParseSpec_errors() {
	_, err := spec.ParseSpec("bad.yaml", []byte(`version: 1
name: bad
variants:
  - name: plain
    target: http://127.0.0.1:9000/
load:
  mode: closed
  rates: [100]
  duration: 10
`), "")
	fmt.Println(err)
	// Output:
	// bad.yaml:7: load.concurrency: missing: closed mode needs concurrency (workers)
	// bad.yaml:8: load.rates: closed mode takes concurrency, not rates; give mode: open for an open loop
	// bad.yaml:9: load.duration: expected a duration such as 10s, got 10
}

// ExampleSpec_LoadFor reads a spec, plans it with its seed and attacks
// each trial's load. A graph variant's load needs its entry URL, known
// once the graph is up; a target variant's ignores it.
func ExampleSpec_LoadFor() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	sp, err := spec.ParseSpec("sweep.yaml", []byte(`
version: 1
name: sweep
variants: [{name: plain, target: '`+srv.URL+`/'}]
load: {rates: [500, 1000], requests: 10}
seed: 1
`), "")
	if err != nil {
		fmt.Println(err) // every problem, one per line
		return
	}
	for _, t := range sp.Plan(*sp.Seed) {
		cfg, err := sp.LoadFor(t, "")
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := load.Attack(context.Background(), cfg)
		if err != nil {
			fmt.Println(err)
			return
		}
		sum, err := record.Summarize(res)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s at %g/s: %d requests, status codes %v\n", t.Variant, t.Rate, sum.Requests, sum.StatusCodes)
	}
	// Output:
	// plain at 500/s: 10 requests, status codes map[200:10]
	// plain at 1000/s: 10 requests, status codes map[200:10]
}

func TestExampleSpecs(t *testing.T) {
	paths, err := filepath.Glob("../examples/experiments/*.yaml")
	top, err2 := filepath.Glob("../examples/*.yaml")
	paths = append(paths, top...)
	if err != nil || err2 != nil || len(paths) < 7 {
		t.Fatalf("example specs %v, %v, %v", paths, err, err2)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			s, err := spec.ReadSpec(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.WritePlan(discard{}, s.Plan(1)); err != nil {
				t.Fatal(err)
			}
		})
	}
	s, err := spec.ReadSpec("../examples/experiments/filter-overhead.yaml")
	if err != nil {
		t.Fatal(err)
	}
	graphs, targets := 0, 0
	for _, v := range s.Variants {
		if v.Graph != "" {
			graphs++
		} else if v.Start != "" && v.Ready != "" {
			targets++
		}
	}
	if graphs != 2 || targets != 1 || len(s.Load.Rates) != 3 || s.Runs != 3 {
		t.Errorf("filter-overhead: %d graphs, %d external variants, rates %v, %d runs; want 2, 1, three rates, 3",
			graphs, targets, s.Load.Rates, s.Runs)
	}
	if _, err := os.Stat(s.Path(s.Variants[0].Graph)); err != nil {
		t.Error(err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
