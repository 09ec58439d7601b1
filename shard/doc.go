// Package shard coordinates a trial's load sent from several agents at
// once: it measures each agent's clock against the coordinator's (Offset,
// as NTP measures it) and flags an offset past the bound a common start
// needs (Skewed), starts every shard at one instant, watches for a shard
// that is lost, and merges their results exactly (record.Merge). The
// agents are local processes (StartLocal) or the pods of one
// Indexed Job (RunInPods); Run drives either through
// remote.Client. load.Shard deals one schedule over the shards, request i
// to shard i mod N, and store keeps each shard's result beside the merged
// run. What a coordinator costs per shard, measured, is in docs/shards.md.
//
// Offset and Skewed are pure functions, safe to call concurrently;
// Run runs one trial and may run beside another on other agents.
package shard
