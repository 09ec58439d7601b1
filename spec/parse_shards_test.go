package spec

import (
	"testing"
	"time"
)

const shardsBase = `version: 1
name: sharded
variants: [{name: web, target: "http://127.0.0.1:9/"}]
load:
  mode: open
  rates: [100]
  duration: 1s
`

func TestParseShards(t *testing.T) {
	s, err := ParseSpec("spec.yaml", []byte(shardsBase+"  shards: 4\n"), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	if s.Shards == nil || s.Shards.Count != 4 || s.Shards.ClockSkew != DefaultShardSkew {
		t.Errorf("shards %+v; want 4, the default clock skew", s.Shards)
	}
	s, err = ParseSpec("spec.yaml", []byte(shardsBase+"  shards: 2\n  clock_skew: 250us\n"), "testdata/specs")
	if err != nil || s.Shards.ClockSkew != 250*time.Microsecond {
		t.Errorf("clock_skew: %+v, %v; want 250µs", s.Shards, err)
	}
	if s, err := ParseSpec("spec.yaml", []byte(shardsBase), "testdata/specs"); err != nil || s.Shards != nil {
		t.Errorf("no shards: %+v, %v", s.Shards, err)
	}
}

func TestParseShardsErrors(t *testing.T) {
	testErrors(t, []errorCase{
		{name: "none", spec: shardsBase + "  shards: 0\n", want: "spec.yaml:8: load.shards: 0 is less than 1"},
		{name: "not a number", spec: shardsBase + "  shards: many\n", want: `spec.yaml:8: load.shards: expected a whole number, got "many"`},
		{name: "skew alone", spec: shardsBase + "  clock_skew: 1ms\n", want: "spec.yaml:8: load.clock_skew: bounds the clock offsets of shards: give shards: N too"},
		{name: "skew not positive", spec: shardsBase + "  shards: 2\n  clock_skew: 0s\n", want: "spec.yaml:9: load.clock_skew: 0s is not positive"},
		{
			name: "sequential",
			spec: "version: 1\nname: s\nvariants: [{name: web, target: \"http://127.0.0.1:9/\"}]\nload: {mode: sequential, requests: 10, shards: 2}\n",
			want: "spec.yaml:4: load.shards: variant web: the sequential mode's one request at a time cannot be split over shards",
		},
		{
			name: "fewer workers",
			spec: "version: 1\nname: s\nvariants: [{name: web, target: \"http://127.0.0.1:9/\"}]\nload: {mode: closed, concurrency: [1, 4], duration: 1s, shards: 2}\n",
			want: "spec.yaml:4: load.shards: variant web: concurrency 1 cannot be split over 2 shards: want at least one worker each",
		},
	})
}
