package spec

import (
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// DefaultShardSkew is the bound on the clock offset between shards when
// the spec does not say (see shard.Result.Skewed).
const DefaultShardSkew = time.Millisecond

// shardKeys are the fields of the spec's load that split it over shards.
var shardKeys = []string{"shards", "clock_skew"}

// maxShards bounds load.shards.
const maxShards = 1000

// loadShards takes the fields of shardKeys out of the spec's load
// mapping n, decoding them, so that the rest decodes as load.Settings.
func (d *decoder) loadShards(n *yaml.Node) *Shards {
	n = yamlfile.Deref(n)
	if !yamlfile.IsMapping(n) {
		return nil
	}
	given := map[string][2]*yaml.Node{}
	kept := n.Content[:0:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "shards" || k.Value == "clock_skew" {
			given[k.Value] = [2]*yaml.Node{k, v}
			continue
		}
		kept = append(kept, k, v)
	}
	n.Content = kept
	count, ok := given["shards"]
	if !ok {
		if kv, ok := given["clock_skew"]; ok {
			d.errorf(kv[0], "load.clock_skew", "bounds the clock offsets of shards: give shards: N too")
		}
		return nil
	}
	s := &Shards{ClockSkew: DefaultShardSkew}
	if c, ok := d.integer(count[1], "load.shards", 1, maxShards); ok {
		s.Count = int(c)
	}
	if kv, ok := given["clock_skew"]; ok {
		keep(&s.ClockSkew)(d.duration(kv[1], "load.clock_skew"))
	}
	return s
}

// Shards split each trial's load over Count generators that start
// together and whose results merge exactly (see shard.Run).
type Shards struct {
	Count     int           `spec:"shards"`
	ClockSkew time.Duration `spec:"clock_skew"` // flag clock_skew when a shard's clock may be off by more
}

// checkShards refuses shards that a load cannot be split into: the
// sequential mode's one connection, fewer workers than shards.
func (d *decoder) checkShards(s *Spec, nodes map[string][2]*yaml.Node) {
	kv, ok := nodes["load"]
	if s.Shards == nil || !ok {
		return
	}
	for _, v := range s.Variants {
		l := v.Load
		if l.Mode == Sequential {
			d.errorf(kv[0], "load.shards", "variant %s: the sequential mode's one request at a time cannot be split over shards", v.Name)
			continue
		}
		for _, c := range l.Concurrency {
			if l.Mode != Open && c < s.Shards.Count {
				d.errorf(kv[0], "load.shards", "variant %s: concurrency %d cannot be split over %d shards: want at least one worker each", v.Name, c, s.Shards.Count)
			}
		}
	}
}
