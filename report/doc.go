// Package report turns results into what people read: the text of one
// attack, and the report of an experiment — a summary table per variant and
// level with confidence intervals, the overhead of each variant against the
// baseline, knees and SLO verdicts — as text, JSON or CSV.
//
//	res, _ := load.Attack(ctx, cfg)
//	report.Attack(os.Stdout, res, "GET http://127.0.0.1:8080/")
//
//	exp, _ := analysis.Load(ctx, db, id)
//	r, _ := report.NewExperiment(exp, report.ExperimentOptions{})
//	r.WriteText(os.Stdout)
//
// Durations print in readable units with microsecond resolution (11.3µs,
// 2.41ms, 1.203s); a percentile read from too few samples prints as n/a, one
// from few samples with a leading "~". Functions here only read their
// arguments and are safe to call concurrently.
package report
