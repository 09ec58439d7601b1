package analysis

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/store"
)

// A ProbeStat summarises one probe series of a variant at a level over
// the level's counted runs: each run's points reduced to their median and
// their maximum, then the median of the medians and the highest maximum.
// The bounds of a classic bucket (BucketOf) take the lower median at both
// steps instead, and a p100 the upper, so that they stay bounds the
// histogram has. Values are in the unit the series name gives.
type ProbeStat struct {
	Variant string
	Level
	Probe  string // the probe that took it: metrics, process, prometheus, traces
	Series string // as stored: "latlab_request_filter_duration_seconds:p99", "rss_bytes"
	// Labels tell series of one name apart, as ProbeLabels keeps them: a
	// process's pid and a lone scrape target's instance are left out,
	// since they change from run to run.
	Labels map[string]string
	Median float64 // median over runs of each run's median point
	// Lo and Hi are the distribution-free 95% interval of Median (see
	// MedianCI) when CIOK, which needs 6 runs or more.
	Lo, Hi float64
	CIOK   bool
	Max    float64 // the highest point of any run
	Runs   int     // runs with points
	Points int     // points over all runs
}

// Family is the series name before any ":": the metric family of a
// windowed quantile or rate ("latlab_request_filter_duration_seconds").
func (p ProbeStat) Family() string { f, _, _ := strings.Cut(p.Series, ":"); return f }

// Stat is the series name after ":": p50, p99, p100, rate; "" for
// series without one.
func (p ProbeStat) Stat() string { _, s, _ := strings.Cut(p.Series, ":"); return s }

// BucketOf says whether p is a bound of the classic bucket a windowed
// quantile fell in (see BucketBound).
func (p ProbeStat) BucketOf() (stat string, upper, ok bool) { return BucketBound(p.Series) }

// BucketSeries names the series of the bounds of the classic bucket that
// quantile stat of family fell in.
func BucketSeries(family, stat string) (lo, hi string) {
	return family + ":" + stat + probe.BucketLow, family + ":" + stat + probe.BucketHigh
}

// BucketBound says whether series holds a bound of the classic bucket a
// windowed quantile fell in ("x:p99:bucket_lo", see probe.BucketLow): the
// quantile's stat ("p99") and whether it is the upper bound.
func BucketBound(series string) (stat string, upper, ok bool) {
	_, rest, _ := strings.Cut(series, ":")
	if q, found := strings.CutSuffix(":"+rest, probe.BucketLow); found && q != "" {
		return q[1:], false, true
	}
	if q, found := strings.CutSuffix(":"+rest, probe.BucketHigh); found && q != "" {
		return q[1:], true, true
	}
	return "", false, false
}

// ProbeStats summarises the probe points of l's counted runs (points
// holds each run's by its ID), a ProbeStat per probe, series and label
// set, ordered by probe, series and LabelKey. Liveness ("up"), the
// answers to observers (ObserverRoute) and points that are not finite
// are left out: they are not measurements of the load.
func ProbeStats(l LevelResult, points map[int64][]store.ProbePoint) []ProbeStat {
	type acc struct {
		stat      ProbeStat
		meds, max []float64
	}
	groups := map[string]*acc{}
	for _, id := range l.RunIDs {
		run := points[id]
		labels := ProbeLabels(run)
		perRun := map[string][]float64{}
		for i, p := range run {
			if p.Series == "up" || ObserverRoute(p) || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
				continue
			}
			key := p.Probe + "\x00" + p.Series + "\x00" + LabelKey(labels[i])
			if groups[key] == nil {
				groups[key] = &acc{stat: ProbeStat{Variant: l.Variant, Level: l.Level, Probe: p.Probe, Series: p.Series, Labels: labels[i]}}
			}
			perRun[key] = append(perRun[key], p.Value)
		}
		for key, vs := range perRun {
			g := groups[key]
			g.meds, g.max = append(g.meds, probeMedian(g.stat.Series, vs)), append(g.max, slices.Max(vs))
			g.stat.Runs++
			g.stat.Points += len(vs)
		}
	}
	out := make([]ProbeStat, 0, len(groups))
	for _, g := range groups {
		g.stat.Median, g.stat.Lo, g.stat.Hi, g.stat.CIOK = MedianCI(g.meds)
		g.stat.Median = probeMedian(g.stat.Series, g.meds)
		if _, _, bound := g.stat.BucketOf(); bound {
			g.stat.CIOK = false // the bucket's bound, not a value that varies
		}
		g.stat.Max = slices.Max(g.max)
		out = append(out, g.stat)
	}
	slices.SortFunc(out, func(a, b ProbeStat) int {
		return cmp.Or(cmp.Compare(a.Probe, b.Probe), cmp.Compare(a.Series, b.Series), cmp.Compare(LabelKey(a.Labels), LabelKey(b.Labels)))
	})
	return out
}

// probeMedian returns the median of xs, values of series: for a bucket's
// bound (BucketBound) the lower of two middle values, and for a p100 the
// higher, so that either stays a bound the histogram has (the middle of
// two is none), a p100 a true upper one. NaN for no values.
func probeMedian(series string, xs []float64) float64 {
	_, _, bound := BucketBound(series)
	_, stat, _ := strings.Cut(series, ":")
	if len(xs) == 0 || !bound && stat != "p100" {
		return Median(xs)
	}
	s := slices.Sorted(slices.Values(xs))
	if bound {
		return s[(len(s)-1)/2]
	}
	return s[len(s)/2]
}

// ProbeLabels returns the labels of each of one run's points that tell
// its series apart from run to run. A process is named by its role,
// command and name (a graph node's service, a variant, when the runner
// gave one); when several share all three, the pid's rank among them is kept as
// label n, since a pid changes from run to run (and so does the pid of a
// process's root, which is dropped too). A family scraped from one
// instance only, or labelled by service as graph nodes are, drops its
// instance label, which may change from run to run too.
func ProbeLabels(run []store.ProbePoint) []map[string]string {
	pids := map[string][]int{}         // role and comm → pids
	instances := map[string][]string{} // probe and family → instances
	for _, p := range run {
		if p.Probe == "process" {
			k := processKey(p.Labels)
			if pid, err := strconv.Atoi(p.Labels["pid"]); err == nil && !slices.Contains(pids[k], pid) {
				pids[k] = append(pids[k], pid)
			}
			continue
		}
		if in, ok := p.Labels["instance"]; ok {
			f, _, _ := strings.Cut(p.Series, ":")
			k := p.Probe + "\x00" + f
			if !slices.Contains(instances[k], in) {
				instances[k] = append(instances[k], in)
			}
		}
	}
	for _, ps := range pids {
		slices.Sort(ps)
	}
	out := make([]map[string]string, len(run))
	for i, p := range run {
		var drop string
		var rank int
		switch p.Probe {
		case "process":
			drop = "pid"
			k := processKey(p.Labels)
			if ps := pids[k]; len(ps) > 1 {
				pid, _ := strconv.Atoi(p.Labels["pid"])
				rank = slices.Index(ps, pid) + 1
			}
		default:
			f, _, _ := strings.Cut(p.Series, ":")
			if _, named := p.Labels["service"]; named || len(instances[p.Probe+"\x00"+f]) <= 1 {
				drop = "instance" // a graph node's service label names it for good
			}
		}
		var l map[string]string
		for k, v := range p.Labels {
			if k == drop || drop == "pid" && k == "root" {
				continue // a root is a pid too
			}
			if l == nil {
				l = map[string]string{}
			}
			l[k] = v
		}
		if rank > 0 {
			if l == nil {
				l = map[string]string{}
			}
			l["n"] = strconv.Itoa(rank)
		}
		out[i] = l
	}
	return out
}

// processKey is what tells processes apart from run to run: role,
// command and the name the runner gave (a graph node's service).
func processKey(labels map[string]string) string {
	return labels["role"] + "\x00" + labels["comm"] + "\x00" + labels["name"]
}

// ObserverRoute says whether p measures a graph node's answers to the
// tools that watch it — scrapes, health checks, profiles — rather than to
// the load: those are left out of summaries and plots.
func ObserverRoute(p store.ProbePoint) bool {
	switch p.Labels["route"] {
	case "/metrics", "/healthz", "/debug/pprof/":
		return true
	}
	return false
}

// LabelKey identifies a label set: equal sets have equal keys.
func LabelKey(labels map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		b.WriteString(k + "=" + labels[k] + "\x00")
	}
	return b.String()
}
