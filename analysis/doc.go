// Package analysis turns stored runs into numbers with error bars:
// percentiles per run read from the HDR histograms, medians across runs
// with distribution-free confidence intervals, the overhead of a variant
// against a baseline with a confidence interval and a p-value, Holm's
// correction across a table, the knee: the highest rate that meets an
// SLO, and every verdict a report lays out: the limits of an SLO a level
// breaks (Violations), the spec's expect: against what was measured
// (Expectations), and one attack judged against an SLO (JudgeAttack).
//
// Every number follows the measurement semantics in docs/numbers.md ("What
// every number means"). A quantile q read from fewer than 1/(1−q) samples is n/a,
// never NaN; from fewer than 10/(1−q) it is marked low-confidence and
// carries its order-statistic interval. Flagged runs are kept but left out
// of aggregates unless Options.IncludeFlagged; a run whose stored
// histograms are missing, or disagree with its request count, carries its
// Defects and counts in none. Problems are collected as
// warnings beside the results instead of stopping the analysis.
//
// Methods, chosen by the simulation tests in this package:
//   - the CI of a median over runs is the order-statistic interval
//     [x(k), x(n+1−k)] from the Binomial(n, ½) distribution: exact for any
//     continuous distribution, n/a below 6 runs;
//   - an overhead is the Hodges–Lehmann shift between the variant's and the
//     baseline's per-run values, with the interval that inverts the exact
//     Mann-Whitney test (normal approximation beyond 40,000 pairs); its
//     p-value is benchmath's AssumeNothing U test, the one benchstat uses;
//   - paired, where each variant run has the baseline's run of the same
//     repetition beside it, an overhead is the Hodges–Lehmann centre of
//     the pairs' differences (the median of their Walsh averages) with the
//     interval that inverts the exact signed-rank test (normal
//     approximation beyond 200 pairs), and that test's p-value, exact
//     given ties; zero differences are ranked but signed neither way
//     (Pratt). Overheads pairs whenever the pairs suffice for a 95%
//     interval and, after Holm, a test able to reject: a slow repetition
//     then moves both runs of a pair and cancels out of the difference;
//   - in a table, Holm's correction adjusts the p-values within each
//     quantile, and each row's interval is taken at the level Holm tests
//     that row at, 1 − Alpha·p/adjusted p (Diff.Holm, HolmLevel), so that
//     it excludes 0 exactly when the row is significant.
//
// Latencies are float64 seconds once aggregated, like record.Summary.
//
// The package's Example loads an experiment from a results database,
// aggregates its runs by variant and level, and prints each variant's
// overhead against the baseline.
//
// The Load functions (Load, LoadDetail, LoadDistributions) read a results
// database and are as safe as the store.DB they read. Everything else is
// pure computation on values, safe to call concurrently. Comparing two
// `go test -bench` outputs or two sets of stored runs, benchstat style,
// and fitting how a metric scales are package benchcmp's.
package analysis
