package benchcmp

import (
	"errors"
	"fmt"
	"io"
	"math"

	"golang.org/x/perf/benchfmt"
)

// geomeanRow computes benchstat's geomean row.
func geomeanRow(rows []*BenchRow) BenchGeomean {
	var olds, news, ratios []float64
	nOld, badRatio := 0, false
	for _, r := range rows {
		if r.Old != nil {
			olds = append(olds, r.Old.Center)
			nOld++
		}
		if r.New != nil {
			news = append(news, r.New.Center)
		}
		if r.Old != nil && r.New != nil {
			a, b := r.New.Center, r.Old.Center
			switch {
			case a == b:
				ratios = append(ratios, 1)
			case b == 0:
				badRatio = true
			default:
				ratios = append(ratios, a/b)
			}
		}
	}
	var g BenchGeomean
	if nOld != len(ratios) {
		g.Notes = append(g.Notes, "benchmark set differs from baseline; geomeans may not be comparable")
	}
	g.Old, g.New = geoMean(olds), geoMean(news)
	if math.IsNaN(g.Old) || math.IsNaN(g.New) {
		g.Notes = append(g.Notes, "summaries must be >0 to compute geomean")
	}
	if !badRatio {
		g.Ratio = geoMean(ratios)
		g.HasRatio = !math.IsNaN(g.Ratio)
		if !g.HasRatio {
			g.Notes = append(g.Notes, "ratios must be >0 to compute geomean")
		}
	}
	return g
}

// geoMean is the geometric mean of xs, NaN if one is not positive.
func geoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		if x <= 0 {
			return math.NaN()
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// errNoBench is returned by the fuzz harness for files without results.
var errNoBench = errors.New("no benchmark results")

// ParseBench reads `go test -bench` output from r and returns the number
// of results, or the first syntax error naming name and the line.
func ParseBench(r io.Reader, name string) (int, error) {
	br := benchfmt.NewReader(r, name)
	n := 0
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return n, rec
		case *benchfmt.Result:
			n++
		}
	}
	if err := br.Err(); err != nil {
		return n, fmt.Errorf("reading %s: %w", name, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: %w", name, errNoBench)
	}
	return n, nil
}
