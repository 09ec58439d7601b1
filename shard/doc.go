// Package shard measures the clocks of a sharded trial's load generators
// against the coordinator's: the offset of each one, measured as NTP
// measures it (Offset), and whether it is within the bound that a common
// start instant needs (Skewed). It starts nothing. The rest of a sharded
// trial lives where its nouns do: load.Shard deals one load over N shards
// exactly, record.Merge adds their results, experiment.RunShards
// coordinates them (local agent processes or the pods of an Indexed Job),
// store.Shard keeps each shard's result beside the merged run. What a
// coordinator costs per shard, measured, is in docs/shards.md.
//
// Offset and Skewed are pure functions, safe to call concurrently.
package shard
