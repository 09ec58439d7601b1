package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/latlab/latlab/store"
)

// A HopStat is what one edge of a traced service graph, Caller → Callee,
// adds to latency, from the trace probe's stored samples (see probe.Hop):
// Kind "network" is the caller's client span less the callee's server span;
// "framework" is the callee's server span less its work and downstream
// calls; "filter" is one of a server's traced filters, Caller the service
// and Callee the filter's span name, its own time before the next span
// began. Quantiles are seconds, nearest rank over the samples, and NaN
// when n/a: from fewer than 1/(1−q) samples.
type HopStat struct {
	Caller, Callee string // Caller is "" for the graph's entry, called by the load generator
	Kind           string // network or framework
	Count          int    // samples
	P50, P90, P99  float64
}

// hopSeries maps the trace probe's series to a HopStat's Kind.
var hopSeries = map[string]string{"network_seconds": "network", "framework_seconds": "framework", "filter_seconds": "filter"}

// Hops reduces the trace probe's points among points (Probe "traces",
// Series network_seconds or framework_seconds, Labels caller and callee;
// Series filter_seconds, Labels service and span) to one HopStat per
// caller, callee and kind, ordered by caller, callee, then network before
// framework. Other points are ignored.
func Hops(points []store.ProbePoint) []HopStat {
	type key struct{ caller, callee, kind string }
	values := map[key][]float64{}
	for _, p := range points {
		kind, ok := hopSeries[p.Series]
		if p.Probe != "traces" || !ok {
			continue
		}
		k := key{p.Labels["caller"], p.Labels["callee"], kind}
		if kind == "filter" {
			k = key{p.Labels["service"], p.Labels["span"], kind}
		}
		values[k] = append(values[k], p.Value)
	}
	out := make([]HopStat, 0, len(values))
	for k, vs := range values {
		slices.Sort(vs)
		out = append(out, HopStat{Caller: k.caller, Callee: k.callee, Kind: k.kind, Count: len(vs),
			P50: nearestRank(vs, 0.5), P90: nearestRank(vs, 0.9), P99: nearestRank(vs, 0.99)})
	}
	slices.SortFunc(out, func(a, b HopStat) int {
		// "network" sorts after "framework"; a request crosses it first.
		return cmp.Or(cmp.Compare(a.Caller, b.Caller), cmp.Compare(a.Callee, b.Callee),
			-cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// OrphanSpans returns how many server spans the trace probe left out of
// every hop among points because the parent span they name never reached
// it (Probe "traces", Series orphan_spans_total, summed over callees): a
// report can say that so many spans without their parent were left out.
// Such a span's caller is unknown; it is not the load generator's.
func OrphanSpans(points []store.ProbePoint) int {
	var n float64
	for _, p := range points {
		if p.Probe == "traces" && p.Series == "orphan_spans_total" && p.Value > 0 && !math.IsInf(p.Value, 1) {
			n += p.Value
		}
	}
	return int(math.Round(n))
}

// nearestRank returns quantile q of the ascending values vs: the smallest
// value at or above a share q of them, or NaN from fewer than 1/(1−q).
func nearestRank(vs []float64, q float64) float64 {
	n := len(vs)
	if n == 0 || float64(n) < 1/(1-q)-1e-9 {
		return math.NaN()
	}
	rank := int(math.Ceil(q*float64(n) - 1e-9)) // 1-based
	return vs[max(rank, 1)-1]
}
