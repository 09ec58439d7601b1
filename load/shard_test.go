package load

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// errIs reports whether err is nil when want is "", and otherwise an
// error whose message holds want.
func errIs(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}

func TestShardValidate(t *testing.T) {
	for _, tt := range []struct {
		s    Shard
		want string // in the error; "" for none
	}{
		{Shard{}, ""},
		{Shard{Index: 0, Count: 1}, ""},
		{Shard{Index: 2, Count: 3}, ""},
		{Shard{Index: 0, Count: -1}, "want a count of at least 1"},
		{Shard{Index: 1, Count: 0}, "want a count of at least 1"},
		{Shard{Index: -1, Count: 3}, "want an index from 0 to 2"},
		{Shard{Index: 3, Count: 3}, "shard 3 of 3: want an index from 0 to 2"},
	} {
		if err := tt.s.Validate(); !errIs(err, tt.want) {
			t.Errorf("%+v.Validate() = %v, want %q", tt.s, err, tt.want)
		}
	}
}

func TestShardCheck(t *testing.T) {
	three := Shard{Index: 1, Count: 3}
	for _, tt := range []struct {
		s     Shard
		m     Model
		count int64
		want  string // in the error; "" for none
	}{
		{three, Open{Pacer: Constant{Rate: 1}}, 0, ""},
		{three, Closed{Workers: 3}, 3, ""},
		{three, Ramp{Workers: 3, Burst: 1, Every: time.Second}, 0, ""},
		{Shard{}, Sequential{}, 0, ""},
		{Shard{Count: 1}, Closed{Workers: 1}, 1, ""},
		{three, Sequential{}, 0, "cannot be split"},
		{three, Closed{Workers: 2}, 0, "2 workers cannot be split over 3 shards"},
		{three, Ramp{Workers: 2, Burst: 1, Every: time.Second}, 0, "2 workers cannot be split over 3 shards"},
		{three, Open{Pacer: Constant{Rate: 1}}, 2, "2 requests cannot be split over 3 shards"},
		{Shard{Index: 3, Count: 3}, Closed{Workers: 9}, 0, "want an index from 0 to 2"},
	} {
		if err := tt.s.Check(tt.m, tt.count); !errIs(err, tt.want) {
			t.Errorf("%+v.Check(%#v, %d) = %v, want %q", tt.s, tt.m, tt.count, err, tt.want)
		}
	}
}

// TestShardShare deals n items over n shards: the shares sum to n, differ
// by at most one, and the first n mod N shards hold the one more.
func TestShardShare(t *testing.T) {
	for count := 1; count <= 7; count++ {
		for n := int64(0); n <= 50; n++ {
			var sum int64
			for k := range count {
				got := Shard{Index: k, Count: count}.Share(n)
				want := n / int64(count)
				if int64(k) < n%int64(count) {
					want++
				}
				if got != want {
					t.Errorf("shard %d of %d: share of %d is %d, want %d", k, count, n, got, want)
				}
				sum += got
			}
			if sum != n {
				t.Errorf("%d shards: shares of %d sum to %d", count, n, sum)
			}
		}
	}
	if got := (Shard{}).Share(11); got != 11 {
		t.Errorf("unsharded share of 11 is %d, want 11", got)
	}
}

// schedule returns the due times of p before end.
func schedule(p Pacer, end time.Duration) []time.Duration {
	var out []time.Duration
	for i := int64(0); ; i++ {
		off, ok := p.Due(i)
		if !ok || off >= end {
			return out
		}
		out = append(out, off)
	}
}

// TestShardedSchedules splits schedules over 1 to 7 shards: each shard's
// request j is request j×N+k of the whole, so that the shards' schedules
// together are the whole's exactly, and their rates sum to its rate.
func TestShardedSchedules(t *testing.T) {
	stages := Stages{Start: 20, Steps: []Stage{{400 * time.Millisecond, 200}, {300 * time.Millisecond, 100}}}
	for _, tt := range []struct {
		name  string
		mk    func() Pacer
		end   time.Duration
		count int // requests before end, when fixed; a prime, so no multiple of N > 1
	}{
		{"constant", func() Pacer { return Constant{Rate: 97} }, time.Second, 97},
		{"stages", func() Pacer { return stages }, time.Hour, 89},
		{"poisson 1", func() Pacer { return &Poisson{Of: Constant{Rate: 97}, Seed: 1} }, time.Second, 0},
		{"poisson 7", func() Pacer { return &Poisson{Of: Constant{Rate: 97}, Seed: 7} }, time.Second, 0},
		{"poisson 42", func() Pacer { return &Poisson{Of: Constant{Rate: 500}, Seed: 42} }, 300 * time.Millisecond, 0},
		{"poisson stages", func() Pacer { return &Poisson{Of: stages, Seed: 3} }, time.Hour, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			whole := schedule(tt.mk(), tt.end)
			if tt.count > 0 && len(whole) != tt.count {
				t.Fatalf("the whole schedule has %d requests, want %d", len(whole), tt.count)
			}
			for n := 1; n <= 7; n++ {
				var union []time.Duration
				var rate float64
				for k := range n {
					p := Sharded{Pacer: tt.mk(), Index: k, Count: n}
					part := schedule(p, tt.end)
					for j, off := range part {
						if i := j*n + k; i >= len(whole) || off != whole[i] {
							t.Fatalf("%d shards: shard %d's request %d is due at %s, not at request %d's time", n, k, j, off, i)
						}
					}
					if want := (Shard{Index: k, Count: n}).Share(int64(len(whole))); int64(len(part)) != want {
						t.Errorf("%d shards: shard %d has %d requests, want %d", n, k, len(part), want)
					}
					union = append(union, part...)
					rate += p.Mean()
				}
				slices.Sort(union)
				if !slices.Equal(union, whole) {
					t.Errorf("%d shards: %d requests in all, want the whole schedule's %d exactly", n, len(union), len(whole))
				}
				if m := tt.mk().Mean(); math.Abs(rate-m) > 1e-9*m {
					t.Errorf("%d shards: rates sum to %g, want %g", n, rate, m)
				}
			}
		})
	}
}

// TestShardedRamp checks that the workers the shards start by each burst
// of a ramp, or at once in a closed loop, sum to the whole load's.
func TestShardedRamp(t *testing.T) {
	for workers := 1; workers <= 20; workers++ {
		for burst := 1; burst <= 8; burst++ {
			m := Ramp{Workers: workers, Burst: burst, Every: time.Second}
			for n := 1; n <= min(workers, 7); n++ {
				for step := 0; ; step++ {
					all := m.started(step)
					if want := min(workers, (step+1)*burst); all != want {
						t.Fatalf("%+v: %d workers started by burst %d, want %d", m, all, step, want)
					}
					var sum int64
					for k := range n {
						sum += Shard{Index: k, Count: n}.Share(int64(all))
					}
					if sum != int64(all) {
						t.Errorf("%+v over %d shards: %d workers by burst %d, want %d", m, n, sum, step, all)
					}
					if all == workers {
						break
					}
				}
			}
		}
	}
}

func TestShardedAttackRefused(t *testing.T) {
	src := Static{{Method: http.MethodGet, URL: &url.URL{Scheme: "http", Host: "127.0.0.1:1", Path: "/"}}}
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{Model: Open{Pacer: Constant{Rate: 1}}, Count: 9, Shard: Shard{Index: 3, Count: 3}}, "want an index from 0 to 2"},
		{Config{Model: Sequential{}, Count: 9, Shard: Shard{Count: 2}}, "cannot be split"},
		{Config{Model: Closed{Workers: 2}, Count: 9, Shard: Shard{Count: 3}}, "2 workers cannot be split over 3 shards"},
		{Config{Model: Open{Pacer: Constant{Rate: 1}}, Count: 2, Shard: Shard{Count: 3}}, "2 requests cannot be split over 3 shards"},
	} {
		tt.cfg.Source = src
		if _, err := Attack(context.Background(), tt.cfg); !errIs(err, tt.want) {
			t.Errorf("Attack(%+v) = %v, want an error with %q", tt.cfg.Shard, err, tt.want)
		}
	}
}

// pathServer is an httptest server that counts requests by path.
type pathServer struct {
	*httptest.Server
	mu    sync.Mutex
	paths map[string]int
}

func newPathServer(t *testing.T, sleep time.Duration) *pathServer {
	t.Helper()
	s := &pathServer{paths: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths[r.URL.Path]++
		s.mu.Unlock()
		time.Sleep(sleep)
	}))
	t.Cleanup(s.Close)
	return s
}

// take returns the counts by path so far, and starts them again.
func (s *pathServer) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.paths
	s.paths = map[string]int{}
	return out
}

// shardAttacks runs cfg over n shards at once, released together, and
// returns each shard's result.
func shardAttacks(t *testing.T, cfg Config, n int) []*record.Result {
	t.Helper()
	out := make([]*record.Result, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for k := range n {
		c := cfg
		c.Shard = Shard{Index: k, Count: n}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[k], errs[k] = Attack(context.Background(), c)
		}()
	}
	close(start)
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", k, err)
		}
		if r := out[k]; r.Sent != r.Requests {
			t.Errorf("shard %d sent %d but completed %d", k, r.Sent, r.Requests)
		}
	}
	return out
}

// TestShardedOpenAttack sends 200 requests of an open loop over 3 shards
// at once, on event loops and on goroutines: together they send what one
// unsharded attack sends, each request at its intended time of the whole
// schedule and to the target the whole load gives it.
func TestShardedOpenAttack(t *testing.T) {
	const n, shards = 200, 3
	for _, tt := range []struct {
		name string
		mk   func() Pacer
		opts Options
	}{
		{"constant", func() Pacer { return Constant{Rate: 400} }, Options{}},
		{"poisson nethttp", func() Pacer { return &Poisson{Of: Constant{Rate: 400}, Seed: 5} }, Options{NetHTTP: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newPathServer(t, 0)
			var src Static
			for i := range 7 { // 200 is no multiple of 7: targets unevenly used
				src = append(src, staticTo(t, fmt.Sprintf("%s/t%d", srv.URL, i))...)
			}
			cfg := Config{Source: src, Model: Open{Pacer: tt.mk(), MaxInFlight: 10}, Transport: tt.opts, Count: n, KeepRaw: n}
			whole := attack(t, context.Background(), cfg)
			wantPaths := srv.take()
			parts := shardAttacks(t, cfg, shards)
			gotPaths := srv.take()

			var want []time.Duration
			p := tt.mk()
			for i := range int64(n) {
				off, _ := p.Due(i)
				want = append(want, off)
			}
			var sent, requests int64
			var rate float64
			var union []time.Duration
			for k, r := range parts {
				sent += r.Sent
				requests += r.Requests
				rate += r.TargetRate
				if want := (Shard{Index: k, Count: shards}).Share(n); r.Sent != want {
					t.Errorf("shard %d sent %d, want its share %d", k, r.Sent, want)
				}
				if want := (Shard{Index: k, Count: shards}).Share(10); int64(r.Concurrency) != want {
					t.Errorf("shard %d: cap on requests in flight %d, want its share of 10", k, r.Concurrency)
				}
				for j, raw := range r.Raw {
					if raw.Intended != want[j*shards+k] {
						t.Errorf("shard %d: request %d intended at %s, want request %d's %s", k, j, raw.Intended, j*shards+k, want[j*shards+k])
						break
					}
				}
				for _, raw := range r.Raw {
					union = append(union, raw.Intended)
				}
			}
			if sent != whole.Sent || requests != whole.Requests || sent != n {
				t.Errorf("shards sent %d and completed %d; unsharded %d and %d; want %d", sent, requests, whole.Sent, whole.Requests, n)
			}
			if math.Abs(rate-whole.TargetRate) > 1e-9 {
				t.Errorf("shards' target rates sum to %g, want %g", rate, whole.TargetRate)
			}
			slices.Sort(union)
			if !slices.Equal(union, want) {
				t.Errorf("shards' intended times: %d, want the schedule's %d exactly", len(union), len(want))
			}
			if diff := cmp.Diff(wantPaths, gotPaths); diff != "" {
				t.Errorf("requests by target, sharded (+) against unsharded (-):\n%s", diff)
			}
		})
	}
}

// TestShardedClosedAttack splits a closed loop of 5 workers and 100
// iterations over 3 shards: the iterations sum to 100 and their sequence
// numbers, as the source sees them, are those of the whole load, as are
// the workers'.
func TestShardedClosedAttack(t *testing.T) {
	srv := newPathServer(t, 0)
	sc, err := ParseScenario("seq.yaml", []byte(`steps:
  - {url: "`+srv.URL+`/w{{.Worker}}/s{{.Seq}}"}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := shardAttacks(t, Config{Source: sc, Model: Closed{Workers: 5}, Count: 100}, 3)
	var requests int64
	concurrency := 0
	for _, r := range parts {
		requests += r.Requests
		concurrency += r.Concurrency
	}
	if requests != 100 || concurrency != 5 {
		t.Errorf("shards completed %d with %d workers, want 100 with 5", requests, concurrency)
	}
	seqs := map[int]int{}
	for path, c := range srv.take() {
		var w, s int
		if _, err := fmt.Sscanf(path, "/w%d/s%d", &w, &s); err != nil {
			t.Fatalf("path %q: %v", path, err)
		}
		if w < 0 || w >= 5 {
			t.Errorf("worker %d of 5", w)
		}
		seqs[s] += c
	}
	for s := range 100 {
		if seqs[s] != 1 {
			t.Errorf("iteration %d sent %d times, want once", s, seqs[s])
		}
	}
	if len(seqs) != 100 {
		t.Errorf("%d iterations, want 0 to 99", len(seqs))
	}
}

// TestShardedRampAttack ramps 5 workers, 2 every 100 ms, over 3 shards
// started together: each shard holds its share, and no connection of the
// shards' workers opens before its burst of the whole ramp is due.
func TestShardedRampAttack(t *testing.T) {
	srv := newCountingServer(t, 5*time.Millisecond)
	ramp := Ramp{Workers: 5, Burst: 2, Every: 100 * time.Millisecond}
	begin := time.Now()
	parts := shardAttacks(t, Config{Source: staticTo(t, srv.URL), Model: ramp, Duration: 400 * time.Millisecond}, 3)
	for k, r := range parts {
		want := int(Shard{Index: k, Count: 3}.Share(5))
		if r.Concurrency != want || r.InFlightMax != int64(want) || r.HoldFrom != 200*time.Millisecond {
			t.Errorf("shard %d: %d workers, peak in flight %d, holding from %s; want %d, %d, 200ms",
				k, r.Concurrency, r.InFlightMax, r.HoldFrom, want, want)
		}
	}
	checkBursts(t, srv, ramp, begin)
}
