// Package shard starts N load generators together and tells how well it
// did: the offset of each one's clock from the coordinator's, measured
// as NTP measures it (Offset), and whether it is within the bound that a
// common start instant needs (Skewed).
package shard
