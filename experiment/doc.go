// Package experiment runs a spec's plan (package spec) into a store.DB:
// it brings each variant up and down, runs each trial — here, in a load
// pod or from shards — judges it valid or flags it, and stores it,
// resuming an experiment where it stopped.
//
// A Runner runs the plan, committing each trial's run as the next trial
// runs. Under runs: auto it runs the plan a repetition at a time past the
// min, each decided on the runs stored before it, and Outcome.Stops says
// why each variant and level stopped. A trial counts as done once its run
// is committed; a commit that fails is tried again, then kept in a side
// file beside the database (store.SavePending), and the plan stops with a
// *NotStoredError naming it; the next Run imports it first. A spec that
// differs from the stored experiment's in its runs: field alone, planning
// as many repetitions or more, goes on with that experiment (a Raise).
// Preview says what Run would do, changing nothing.
//
// A trial's load runs where its spec says. Here, the Runner attacks with
// package load. With load: {on: kubernetes}, the trial goes in a bundle
// to a load pod's agent (remote.RunInPod). With load: {shards: N}, it goes
// to N agents together, local processes or the pods of one Job
// (shard.Run), and their results merge exactly. Every way stores
// the same figures.
//
// Flags judges a run by the spec's validity bounds (docs/numbers.md,
// "What every number means"); a flagged run is stored, and reports leave
// it out of their figures unless asked to include flagged runs.
//
// A Runner runs one plan at a time; its fields must not change while it
// runs.
package experiment
