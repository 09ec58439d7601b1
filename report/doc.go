// Package report turns results into what people read: the text of one
// attack, and the report of an experiment — a summary table per variant and
// level with confidence intervals, the overhead of each variant against the
// baseline, the spec's expect: against what was measured, knees and SLO
// verdicts, a summary of the probes — as text, JSON, CSV or HTML, and the
// listing of a results database latlab ls shows (Listing). It lays out
// what package analysis computed; what the spec planned it reads from
// the experiment's spec.Design, never from the spec's text.
//
// ExampleAttack prints the text of one attack; ExampleExperiment_WriteText
// the report of an experiment read from a results database, with its probe
// summary.
//
// Durations, rates and byte counts print as package units formats them
// (11.3µs, 2.415ms, 1.203s; 1235/s); a percentile read from too few samples prints as n/a, one
// from few samples with a leading "~". Functions here only read their
// arguments and are safe to call concurrently, except Experiment.LoadProbes
// and Experiment.LoadShards, which set what the Experiment reports;
// ListExperiments reads a results database, as safe as the store.DB.
package report
