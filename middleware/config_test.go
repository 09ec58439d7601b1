package middleware

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// configFields returns the Field of every *ConfigError in err.
func configFields(err error) []string {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var fields []string
	for _, e := range errs {
		var ce *ConfigError
		if errors.As(e, &ce) {
			fields = append(fields, ce.Field)
		} else {
			fields = append(fields, "not a *ConfigError: "+e.Error())
		}
	}
	return fields
}

func TestNewFairQueueValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  FairQueueConfig
		want []string // fields named, in order
	}{
		{name: "zero value", cfg: FairQueueConfig{}},
		{name: "full", cfg: FairQueueConfig{Concurrency: 4, Queues: 8, HandSize: 2, QueueLength: 10, Header: "X-User",
			Levels: []Level{{Name: "a", Shares: 1, Users: []string{"x"}}, {Name: "b", Shares: 2}}, RetryAfter: time.Second}},
		{name: "negative concurrency", cfg: FairQueueConfig{Concurrency: -1}, want: []string{"Concurrency"}},
		{name: "negative queues", cfg: FairQueueConfig{Queues: -1}, want: []string{"Queues"}},
		{name: "negative hand", cfg: FairQueueConfig{HandSize: -2}, want: []string{"HandSize"}},
		{name: "hand larger than deck", cfg: FairQueueConfig{Queues: 4, HandSize: 5}, want: []string{"HandSize"}},
		{name: "hand needs too many bits", cfg: FairQueueConfig{Queues: 64, HandSize: 12}, want: []string{"HandSize"}},
		{name: "largest hand", cfg: FairQueueConfig{Queues: 19, HandSize: 19}},
		{name: "negative queue length", cfg: FairQueueConfig{QueueLength: -1}, want: []string{"QueueLength"}},
		{name: "negative retry after", cfg: FairQueueConfig{RetryAfter: -time.Second}, want: []string{"RetryAfter"}},
		{name: "level without name", cfg: FairQueueConfig{Levels: []Level{{Name: "a"}, {}}}, want: []string{"Levels[1].Name"}},
		{name: "levels with one name", cfg: FairQueueConfig{Levels: []Level{{Name: "a"}, {Name: "a"}}}, want: []string{"Levels[1].Name"}},
		{name: "negative shares", cfg: FairQueueConfig{Levels: []Level{{Name: "a", Shares: -1}}}, want: []string{"Levels[0].Shares"}},
		{name: "user twice in a level", cfg: FairQueueConfig{Levels: []Level{{Name: "a", Users: []string{"u", "u"}}}},
			want: []string{"Levels[0].Users[1]"}},
		{name: "user in two levels", cfg: FairQueueConfig{Levels: []Level{{Name: "a", Users: []string{"u"}}, {Name: "b", Users: []string{"v", "u"}}}},
			want: []string{"Levels[1].Users[1]"}},
		{name: "every problem at once", cfg: FairQueueConfig{Concurrency: -1, QueueLength: -1, Levels: []Level{{Shares: -1}}},
			want: []string{"Concurrency", "QueueLength", "Levels[0].Name", "Levels[0].Shares"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := NewFairQueue(tc.cfg, nil)
			if diff := cmp.Diff(tc.want, configFields(err)); diff != "" {
				t.Errorf("fields named (-want +got):\n%s\nerror: %v", diff, err)
			}
			if (q == nil) == (err == nil) {
				t.Errorf("got queue %v and error %v; want exactly one", q, err)
			}
		})
	}
}

func TestLevelLimits(t *testing.T) {
	tests := []struct {
		name        string
		concurrency int
		shares      []int
		want        []int
	}{
		{"default", 0, []int{1}, []int{DefaultConcurrency}},
		{"even", 10, []int{1, 1}, []int{5, 5}},
		{"rounded up", 10, []int{1, 2}, []int{4, 7}},
		{"at least one", 2, []int{1, 1, 1}, []int{1, 1, 1}},
		{"zero shares mean one", 4, []int{0, 3}, []int{1, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := FairQueueConfig{Concurrency: tc.concurrency}
			for i, s := range tc.shares {
				cfg.Levels = append(cfg.Levels, Level{Name: string(rune('a' + i)), Shares: s})
			}
			q, err := NewFairQueue(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, l := range q.levels {
				got = append(got, l.limit)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
		})
	}
}
