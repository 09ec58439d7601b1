// Package report turns results into what people read: text for terminals
// (and, as the package grows, JSON, CSV and HTML reports).
//
//	res, _ := load.Attack(ctx, cfg)
//	report.Attack(os.Stdout, res, report.AttackInfo{Target: url})
//
// Durations print in readable units with microsecond resolution (11.3µs,
// 2.41ms, 1.203s); a percentile read from too few samples prints as n/a, one
// from few samples with a leading "~". Functions here only read their
// arguments and are safe to call concurrently.
package report
