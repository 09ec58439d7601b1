package report

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// A ProbeStat summarises one probe series of a variant at a level over
// the level's counted runs: each run's points reduced to their median and
// their maximum, then the median of the medians and the highest maximum.
// Values are in the unit the series name gives.
type ProbeStat struct {
	Variant string
	analysis.Level
	Probe  string // the probe that took it: metrics, process, prometheus, traces
	Series string // as stored: "latlab_request_filter_duration_seconds:p99", "rss_bytes"
	// Labels tell series of one name apart, as probeLabels keeps them: a
	// process's pid and a lone scrape target's instance are left out,
	// since they change from run to run.
	Labels map[string]string
	Median float64 // median over runs of each run's median point
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

// LoadProbes reads the probe points of every counted run from db and sets
// r.Probes, which the text and JSON reports then summarise.
func (r *Experiment) LoadProbes(ctx context.Context, db *store.DB) error {
	points := map[int64][]store.ProbePoint{}
	for _, l := range r.Levels {
		for _, id := range l.RunIDs {
			ps, err := db.Probes(ctx, id)
			if err != nil {
				return fmt.Errorf("reading the probes of run %d: %w", id, err)
			}
			points[id] = ps
		}
	}
	r.Probes = summarizeProbes(r.Levels, points)
	return nil
}

// summarizeProbes summarises the points of each level's counted runs, in
// levels order, then by probe, series and labels. Liveness ("up") is left
// out: it is not a measurement.
func summarizeProbes(levels []analysis.LevelResult, points map[int64][]store.ProbePoint) []ProbeStat {
	out := []ProbeStat{}
	for _, l := range levels {
		type acc struct {
			stat      ProbeStat
			meds, max []float64
		}
		groups := map[string]*acc{}
		for _, id := range l.RunIDs {
			run := points[id]
			labels := probeLabels(run)
			perRun := map[string][]float64{}
			for i, p := range run {
				if p.Series == "up" || observerRoute(p) || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
					continue
				}
				key := p.Probe + "\x00" + p.Series + "\x00" + labelKey(labels[i])
				if groups[key] == nil {
					groups[key] = &acc{stat: ProbeStat{Variant: l.Variant, Level: l.Level, Probe: p.Probe, Series: p.Series, Labels: labels[i]}}
				}
				perRun[key] = append(perRun[key], p.Value)
			}
			for key, vs := range perRun {
				g := groups[key]
				g.meds, g.max = append(g.meds, analysis.Median(vs)), append(g.max, slices.Max(vs))
				g.stat.Runs++
				g.stat.Points += len(vs)
			}
		}
		var stats []ProbeStat
		for _, g := range groups {
			g.stat.Median, g.stat.Max = analysis.Median(g.meds), slices.Max(g.max)
			stats = append(stats, g.stat)
		}
		slices.SortFunc(stats, func(a, b ProbeStat) int {
			return cmp.Or(cmp.Compare(probeOrder(a.Probe), probeOrder(b.Probe)), cmp.Compare(a.Probe, b.Probe),
				cmp.Compare(a.Family(), b.Family()), cmp.Compare(labelKey(a.Labels), labelKey(b.Labels)),
				cmp.Compare(statOrder(a.Stat()), statOrder(b.Stat())))
		})
		out = append(out, stats...)
	}
	return out
}

// probeOrder puts the metrics a target exports first, then queries, then
// processes, then the rest.
func probeOrder(probe string) int {
	switch probe {
	case "metrics":
		return 0
	case "prometheus":
		return 1
	case "process":
		return 2
	}
	return 3
}

// isQuantile reports whether stat names a quantile, such as p99.
func isQuantile(stat string) bool {
	_, ok := analysis.ParseQuantile(stat)
	return ok
}

// statOrder sorts a family's series: quantiles by their value, then the
// rate, then anything else by name.
func statOrder(stat string) float64 {
	if q, ok := analysis.ParseQuantile(stat); ok {
		return q
	}
	if stat == "rate" {
		return 1000
	}
	return 2000
}

// probeLabels returns the labels of each of one run's points as reports
// group them. A process is named by its role and command; when several
// share both, the pid's rank among them is kept as label n, since a pid
// changes from run to run. A family scraped from one instance only, or
// labelled by service as graph nodes are, drops its instance label, which
// may change from run to run too.
func probeLabels(run []store.ProbePoint) []map[string]string {
	pids := map[string][]int{}         // role and comm → pids
	instances := map[string][]string{} // probe and family → instances
	for _, p := range run {
		if p.Probe == "process" {
			k := p.Labels["role"] + "\x00" + p.Labels["comm"]
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
			k := p.Labels["role"] + "\x00" + p.Labels["comm"]
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
			if k == drop {
				continue
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

// observerRoute says whether p measures a graph node's answers to the
// tools that watch it — scrapes, health checks, profiles — rather than to
// the load: those are left out of summaries and plots.
func observerRoute(p store.ProbePoint) bool {
	switch p.Labels["route"] {
	case "/metrics", "/healthz", "/debug/pprof/":
		return true
	}
	return false
}

// labelKey identifies a label set.
func labelKey(labels map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		b.WriteString(k + "=" + labels[k] + "\x00")
	}
	return b.String()
}

// labelText names a label set compactly: a process by its role and
// command ("target latlab-node", "target latlab #2", "load generator"),
// the rest as k=v in name order.
func labelText(labels map[string]string) string {
	if comm, ok := labels["comm"]; ok {
		name := comm
		switch labels["role"] {
		case "latlab":
			name = "load generator"
		case "":
		default:
			name = labels["role"] + " " + comm
		}
		if n := labels["n"]; n != "" {
			name += " #" + n
		}
		if pid := labels["pid"]; pid != "" {
			name += " pid " + pid
		}
		return name
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, " ")
}

// probeValue formats a probe value in the unit its series name gives.
func probeValue(series string, x float64) string {
	family, stat, _ := strings.Cut(series, ":")
	switch {
	case math.IsNaN(x):
		return "n/a"
	case stat == "rate":
		return units.Rate(x)
	case strings.HasSuffix(family, "_seconds"):
		return units.Seconds(x)
	case strings.HasSuffix(family, "_bytes"):
		return units.Bytes(int64(math.Round(x)))
	case strings.HasSuffix(family, "_percent"):
		return fmt.Sprintf("%.1f%%", x)
	case strings.HasSuffix(family, "_ratio"):
		return units.Percent(x, 2)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// A probeTable is one table of the probe summary: its rows start with
// the variant, the level and what the row measures.
type probeTable struct {
	caption string
	head    []string
	rows    [][]string
}

// probeSummaryTables lay stats out in short tables: per metric family,
// the windowed quantiles of each label set, a column per quantile and the
// highest point of the highest one; each process's CPU (its share of the
// CPUs it may use) and memory; any other series but rates and traces,
// with its median and maximum.
func probeSummaryTables(stats []ProbeStat) []probeTable {
	var families []*probeTable
	procs := &probeTable{caption: "Processes", head: []string{"variant", "level", "process", "cpu", "cpu max", "rss max"}}
	other := &probeTable{caption: "Other series", head: []string{"variant", "level", "series", "median", "max"}}
	quantiles := map[string][]string{}
	for _, p := range stats {
		f, stat := p.Family(), p.Stat()
		if p.Probe != "metrics" || !isQuantile(stat) {
			continue
		}
		if _, ok := quantiles[f]; !ok {
			families = append(families, &probeTable{caption: f, head: []string{"variant", "level", "labels"}})
		}
		if !slices.Contains(quantiles[f], stat) {
			quantiles[f] = append(quantiles[f], stat)
		}
	}
	for _, t := range families {
		q := quantiles[t.caption]
		slices.SortFunc(q, func(a, b string) int { return cmp.Compare(statOrder(a), statOrder(b)) })
		t.head = append(append(t.head, q...), "max")
	}
	index := map[string][]string{}
	row := func(t *probeTable, p ProbeStat, name string) []string {
		key := t.caption + "\x00" + p.Variant + "\x00" + p.Level.String() + "\x00" + name
		if r, ok := index[key]; ok {
			return r
		}
		r := []string{p.Variant, p.Level.String(), orDash(name)}
		for len(r) < len(t.head) {
			r = append(r, "-")
		}
		t.rows = append(t.rows, r)
		index[key] = r
		return r
	}
	for _, p := range stats {
		switch stat := p.Stat(); {
		case p.Probe == "metrics" && isQuantile(stat):
			t := families[slices.IndexFunc(families, func(t *probeTable) bool { return t.caption == p.Family() })]
			w := row(t, p, labelText(p.Labels))
			w[3+slices.Index(quantiles[p.Family()], stat)] = probeValue(p.Series, p.Median)
			w[len(w)-1] = probeValue(p.Series, p.Max) // quantiles come in rising order: the last is the highest
		case p.Series == "cpu_allowed_percent" && p.Probe == "process":
			w := row(procs, p, labelText(p.Labels))
			w[3], w[4] = probeValue(p.Series, p.Median), probeValue(p.Series, p.Max)
		case p.Series == "rss_bytes" && p.Probe == "process":
			row(procs, p, labelText(p.Labels))[5] = probeValue(p.Series, p.Max)
		case p.Probe != "traces" && p.Probe != "process" && stat != "rate":
			other.rows = append(other.rows, []string{p.Variant, p.Level.String(), strings.TrimSpace(p.Series + " " + labelText(p.Labels)),
				probeValue(p.Series, p.Median), probeValue(p.Series, p.Max)})
		}
	}
	var out []probeTable
	for _, t := range append(families, procs, other) {
		if len(t.rows) > 0 {
			out = append(out, *t)
		}
	}
	return out
}

// probeText writes the probe summary as probeSummaryTables lays it out;
// nothing when the probes were not read or there are none.
func (r *Experiment) probeText(b *strings.Builder) {
	tables := probeSummaryTables(r.Probes)
	if len(tables) == 0 {
		return
	}
	b.WriteString("\nProbes: each run's points reduced to their median and maximum; shown, the median of the medians\n" +
		"over the counted runs and the highest maximum; a process's cpu is its share of the CPUs it may use;\n" +
		"≤ marks a p100 (and its max) read from histogram buckets: the bound of the highest bucket that held\n" +
		"an observation, not a value measured. Rates and traces are in the JSON report.\n")
	for _, t := range tables {
		b.WriteString("\n" + t.caption + "\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  "+strings.Join(t.head, "\t"))
		for _, row := range t.rows {
			fmt.Fprintln(tw, "  "+strings.Join(boundCells(t.head, row), "\t"))
		}
		tw.Flush()
	}
}

// boundCells returns row with "≤ " before the p100 and max cells of a
// table that reads p100 from histogram buckets: those are the bound of the
// highest bucket that held an observation (bucketBound), not values.
func boundCells(head, row []string) []string {
	if !slices.Contains(head, "p100") {
		return row
	}
	out := slices.Clone(row)
	for i, h := range head {
		if (h == "p100" || h == "max") && i < len(out) && out[i] != "-" {
			out[i] = "≤ " + out[i]
		}
	}
	return out
}
