package load

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

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
		err := tt.s.Validate()
		if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
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
		err := tt.s.Check(tt.m, tt.count)
		if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
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
