package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// maxQuerySteps is the most steps Prometheus answers in one range query
// (its API refuses more than 11,000 points per series).
const maxQuerySteps = 11000

// QueryError is a failed PromQL range query, or a warning or info
// annotation Prometheus returned with an answer. Name is the query's name
// in the spec, Query its PromQL text and URL the server's base URL.
// Warning is true for annotations, whose query still gave its points.
type QueryError struct {
	Name, Query, URL string
	Warning          bool
	Err              error
}

// Error names the query and the server, so that a line in a run's log is
// enough to find both.
func (e *QueryError) Error() string {
	what := "query"
	if e.Warning {
		what = "warning from query"
	}
	return fmt.Sprintf("prometheus %s %s (%s) at %s: %v", what, e.Name, e.Query, e.URL, e.Err)
}

// Unwrap returns the underlying error, such as a *v1.Error from the API
// client or the context's error.
func (e *QueryError) Unwrap() error { return e.Err }

// QueryRange runs each query of queries (name → PromQL) as a range query
// from start to end at resolution step against the Prometheus server at
// baseURL (such as http://127.0.0.1:9090, with a path prefix if the server
// has one), one after another.
//
// Every sample of every series returned becomes a Point with Probe
// "prometheus", Series the query's name, Labels the series' labels and T
// its time as an offset from start. The points of one series share one
// Labels map; treat it as read-only. Samples that are not finite numbers
// (NaN from histogram_quantile over an empty window, ±Inf) and native
// histogram samples are left out, each kind counted in a warning; wrap a
// histogram in histogram_quantile, histogram_count or histogram_sum to
// keep it.
//
// A query that fails does not stop the others: its failure, and every
// warning Prometheus returns, is a *QueryError in the second result, in
// the order of the queries' names. step 0 means one second, or coarser
// when the window would otherwise exceed Prometheus' 11,000 steps.
func QueryRange(ctx context.Context, baseURL string, queries map[string]string, start, end time.Time, step time.Duration) ([]Point, []error) {
	if len(queries) == 0 {
		return nil, nil
	}
	if end.Before(start) {
		return nil, []error{fmt.Errorf("prometheus queries at %s: window ends (%s) before it starts (%s)",
			baseURL, end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))}
	}
	if step < 0 {
		return nil, []error{fmt.Errorf("prometheus queries at %s: negative step %s", baseURL, step)}
	}
	if step == 0 {
		step = defaultStep(end.Sub(start))
	}
	client, err := api.NewClient(api.Config{Address: baseURL})
	if err != nil {
		return nil, []error{fmt.Errorf("prometheus client for %s: %w", baseURL, err)}
	}
	promAPI := v1.NewAPI(client)
	r := v1.Range{Start: start, End: end, Step: step}

	names := make([]string, 0, len(queries))
	for name := range queries {
		names = append(names, name)
	}
	slices.Sort(names)
	var points []Point
	var errs []error
	for _, name := range names {
		q := queries[name]
		qerr := func(warning bool, err error) error {
			return &QueryError{Name: name, Query: q, URL: baseURL, Warning: warning, Err: err}
		}
		val, warnings, infos, err := promAPI.QueryRange(ctx, q, r)
		for _, w := range warnings {
			errs = append(errs, qerr(true, errors.New(w)))
		}
		for _, i := range infos {
			errs = append(errs, qerr(true, errors.New("info: "+i)))
		}
		if err != nil {
			errs = append(errs, qerr(false, err))
			if ctx.Err() != nil {
				// The rest would fail the same way; say so once.
				break
			}
			continue
		}
		matrix, ok := val.(model.Matrix)
		if !ok {
			errs = append(errs, qerr(false, fmt.Errorf("result is a %s, want a matrix", typeOf(val))))
			continue
		}
		var skipped matrixSkips
		points = appendMatrix(points, matrix, name, start, &skipped)
		if skipped.nonFinite > 0 {
			errs = append(errs, qerr(true, fmt.Errorf("left out %d samples that are not finite numbers", skipped.nonFinite)))
		}
		if skipped.histograms > 0 {
			errs = append(errs, qerr(true, fmt.Errorf("left out %d native histogram samples", skipped.histograms)))
		}
	}
	return points, errs
}

// defaultStep is one second, or the smallest whole number of seconds that
// keeps a window of length d within maxQuerySteps.
func defaultStep(d time.Duration) time.Duration {
	steps := time.Duration(math.Ceil(d.Seconds() / maxQuerySteps))
	return max(time.Second, steps*time.Second)
}

// matrixSkips counts the samples appendMatrix left out.
type matrixSkips struct {
	nonFinite, histograms int
}

// appendMatrix appends the float samples of m to points as series name.
func appendMatrix(points []Point, m model.Matrix, name string, start time.Time, skipped *matrixSkips) []Point {
	for _, s := range m {
		labels := make(map[string]string, len(s.Metric))
		for k, v := range s.Metric {
			labels[string(k)] = string(v)
		}
		skipped.histograms += len(s.Histograms)
		for _, p := range s.Values {
			v := float64(p.Value)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				skipped.nonFinite++
				continue
			}
			points = append(points, Point{
				Probe:  "prometheus",
				Series: name,
				Labels: labels,
				T:      p.Timestamp.Time().Sub(start),
				Value:  v,
			})
		}
	}
	return points
}

// typeOf names the type of a query result for an error message.
func typeOf(v model.Value) string {
	if v == nil {
		return "nothing"
	}
	return v.Type().String()
}
