// Package benchcmp compares two samples benchstat style and fits how a
// metric grows with size: CompareBench compares two `go test -bench`
// outputs, CompareRuns two sets of runs of a results database (a variant's
// per-run percentiles at a level are its samples), each row with the
// median of each side, the Hodges–Lehmann ratio and its interval
// (analysis.HodgesLehmannRatio) and the Mann-Whitney p-value of
// benchmath, Holm-corrected on request; FitScale fits linear, n·log n,
// quadratic, log and √n models to a size sweep (ParseScale) and says
// which it follows. The comparisons write themselves as text, JSON, CSV
// and Markdown, latlab compare's outputs; the fits as text and JSON,
// latlab scale's.
//
//	c, err := benchcmp.CompareBench("old.txt", "new.txt", benchcmp.BenchOptions{Holm: true})
//	if err != nil { ... }
//	err = c.WriteText(os.Stdout)
//
// CompareBench and ParseScale read what they are given; everything else
// is pure computation, safe to call concurrently.
package benchcmp
