// Package shard starts N load generators together and tells how well it
// did: the offset of each one's clock from the coordinator's, measured
// as NTP measures it (Offset), and whether it is within the bound that a
// common start instant needs (Skewed). The rest of a sharded trial lives
// where its nouns do: load.Shard deals one load over N shards exactly,
// record.Merge adds their results, experiment.RunShards coordinates them
// (local agent processes or the pods of an Indexed Job), store.Shard keeps
// each shard's result beside the merged run.
//
// # Scale on paper
//
// What a coordinator spends per shard, measured with latlab attack
// --shards N --local against nginx on one 2-CPU machine, 1,000 requests/s
// in all for 20 s, 1 s intervals (the coordinator's own CPU time and peak
// resident memory, read from /proc; its agents not counted):
//
//	shards  coordinator CPU  peak RSS  stored shard results (no raw samples)
//	     1           0.03 s     46 MB     13 KB
//	     8           0.11 s     46 MB     59 KB
//	    16           0.27 s     53 MB     98 KB
//	    32           0.39 s     69 MB    144 KB
//
// So, per shard and trial of 20 s: about 12 ms of coordinator CPU (clock
// exchanges, the bundle, a poll a second, the result's transfer and
// decoding, the merge), 0.7 MB of memory (connections and buffers, and
// the trial's results held for the merge, which grow with its intervals),
// and about 4.5 KB of histograms, some 225 bytes per shard-second at 1 s
// intervals. Raw samples come on top, bounded by the
// trial's cap whatever the number of shards. record.Merge alone takes
// about 115 µs and allocates about 140 KB per shard-interval (its
// benchmark, 100 shards of 60 intervals: 0.69 s, 860 MB allocated, most
// of it in decoding each interval's compressed histograms).
//
// What that predicts for a trial of 60 s at 1 s intervals:
//
//   - 100 shards: about 3.6 s of coordinator CPU over the minute, 70 MB
//     and more held (the results of 60 intervals rather than 20), 1.4 MB
//     of histograms, a merge of 0.7 s. Nothing to worry about.
//   - 1,000 shards: about 36 s of CPU over the minute (60% of a core),
//     0.7 GB and more held, 14 MB of histograms, a merge of 7 s allocating
//     some 8.6 GB in passing. It works on a large machine; the merge would want to
//     stream (decode, add and drop one shard at a time) and the polls to
//     thin out. On a cluster, each shard's poll goes through the API
//     server's pod proxy: 1,000 shards polled every 250 ms are 4,000
//     proxied requests a second, more than most API servers should take
//     from one client; polling every few seconds, or agents pushing their
//     progress, would be the change.
//
// The clock exchanges go one at a time, so that no exchange queues
// behind another and inflates the round trips that bound the offsets
// (on the test cluster, through the pod proxy, this took the bounds from
// 440–780 µs to 380–450 µs): 8 per shard cost 8 round trips each before
// the start, some 40 ms for 3 shards through the pod proxy, 1.2 s for
// 100 and 12 s for 1,000, where exchanging with a few shards at a time
// would be the change.
//
// These are one run's figures on a shared 2-CPU machine, not a benchmark:
// machines here differ by 2× from one day to the next.
package shard
