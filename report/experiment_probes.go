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
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
	"github.com/latlab/latlab/units"
)

// LoadProbes reads the probe points of every counted run from db and sets
// r.Probes, which the text and JSON reports then summarise, and notes
// what a probe failed to measure in them (probeGaps).
func (r *Experiment) LoadProbes(ctx context.Context, db *store.DB) error {
	var ids []int64
	for _, l := range r.Levels {
		ids = append(ids, l.RunIDs...)
	}
	points, err := readProbes(ctx, db, ids, r.warnDamaged)
	if err != nil {
		return err
	}
	r.Probes = probeStats(r.Levels, points)
	for _, n := range probeGaps(r.Levels, points) {
		if !slices.Contains(r.Notes, n) {
			r.Notes = append(r.Notes, n)
		}
	}
	return nil
}

// readProbes reads the probe points of the runs ids from db, by run ID,
// and passes each point that does not decode, left out, to damaged.
func readProbes(ctx context.Context, db *store.DB, ids []int64, damaged func(store.DamagedRow)) (map[int64][]store.ProbePoint, error) {
	points := map[int64][]store.ProbePoint{}
	for _, id := range ids {
		ps, err := db.Probes(ctx, id)
		rows, ok := store.DamagedRows(err)
		if !ok {
			return nil, fmt.Errorf("reading the probes of run %d: %w", id, err)
		}
		for _, row := range rows {
			damaged(row)
		}
		points[id] = ps
	}
	return points, nil
}

// probeStats summarises the probes of each level's counted runs with
// analysis.ProbeStats, in levels order, each level's series in reading
// order: by probe (probeOrder), family and labels, a family's series by
// statOrder.
func probeStats(levels []analysis.LevelResult, points map[int64][]store.ProbePoint) []analysis.ProbeStat {
	out := []analysis.ProbeStat{}
	for _, l := range levels {
		stats := analysis.ProbeStats(l, points)
		slices.SortStableFunc(stats, func(a, b analysis.ProbeStat) int {
			return cmp.Or(cmp.Compare(probeOrder(a.Probe), probeOrder(b.Probe)), cmp.Compare(a.Probe, b.Probe),
				cmp.Compare(a.Family(), b.Family()), cmp.Compare(analysis.LabelKey(a.Labels), analysis.LabelKey(b.Labels)),
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
	_, ok := spec.ParseQuantile(stat)
	return ok
}

// statOrder sorts a family's series: quantiles by their value, then the
// rate, then anything else by name.
func statOrder(stat string) float64 {
	if q, ok := spec.ParseQuantile(stat); ok {
		return q
	}
	if stat == "rate" {
		return 1000
	}
	return 2000
}

// labelText names a label set compactly: a process by its role and the
// name the runner gave it, or else its command ("target root (latlab)",
// "target latlab #2", "load generator"), the rest as k=v in name order.
func labelText(labels map[string]string) string {
	if comm, ok := labels["comm"]; ok {
		name := comm
		if svc := labels["name"]; svc != "" {
			name = svc + " (" + comm + ")"
		}
		switch labels["role"] {
		case "latlab":
			name = "load generator"
		case "":
		default:
			name = labels["role"] + " " + name
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
	// bounds: the p100 and max cells are bucket bounds (boundCells).
	bounds bool
}

// probeSummaryTables lay stats out in short tables: per metric family,
// the windowed quantiles of each label set, a column per quantile (with
// its interval over runs where there is one) and the highest point of the
// highest one, then, for a family read from classic buckets, the bucket
// each quantile fell in; each process's CPU (its share of the CPUs it may
// use) and memory; any other series but rates and traces, with its median
// and maximum.
func probeSummaryTables(stats []analysis.ProbeStat) []probeTable {
	l := newProbeLayout(stats)
	for _, p := range stats {
		_, _, bound := p.BucketOf()
		switch stat := p.Stat(); {
		case bound: // with its quantile
		case p.Probe == "metrics" && isQuantile(stat):
			l.quantile(p, stat)
		case p.Series == "cpu_allowed_percent" && p.Probe == "process":
			w := l.row(l.procs, p, labelText(p.Labels))
			w[3], w[4] = probeValue(p.Series, p.Median), probeValue(p.Series, p.Max)
		case (p.Series == "rss_bytes" || p.Series == "working_set_bytes") && p.Probe == "process":
			l.row(l.procs, p, labelText(p.Labels))[5] = probeValue(p.Series, p.Max)
			l.pods = l.pods || p.Series == "working_set_bytes"
		case p.Probe != "traces" && p.Probe != "process" && stat != "rate":
			l.other.rows = append(l.other.rows, []string{p.Variant, p.Level.String(), strings.TrimSpace(p.Series + " " + labelText(p.Labels)),
				probeValue(p.Series, p.Median), probeValue(p.Series, p.Max)})
		}
	}
	return l.tables()
}

// A probeLayout is the tables of probeSummaryTables as they fill.
type probeLayout struct {
	families  []*probeTable          // a table per metric family, in the order met
	quantiles map[string][]string    // each family's quantiles, rising
	buckets   map[string]*probeTable // by family: the bucket each quantile fell in
	// bounds are the bucket bounds of quantiles read from classic
	// buckets, by boundKey.
	bounds       map[string]analysis.ProbeStat
	procs, other *probeTable
	pods         bool // a process's memory is a pod's working set
	index        map[string][]string
}

// newProbeLayout lays out the families' tables, a column per quantile
// they hold, and indexes the bucket bounds of stats.
func newProbeLayout(stats []analysis.ProbeStat) *probeLayout {
	l := &probeLayout{quantiles: map[string][]string{}, buckets: map[string]*probeTable{},
		bounds: map[string]analysis.ProbeStat{}, index: map[string][]string{},
		procs: &probeTable{caption: "Processes", head: []string{"variant", "level", "process", "cpu", "cpu max", "rss max"}},
		other: &probeTable{caption: "Other series", head: []string{"variant", "level", "series", "median", "max"}}}
	for _, p := range stats {
		f, stat := p.Family(), p.Stat()
		if _, _, ok := p.BucketOf(); ok && p.Probe == "metrics" {
			l.bounds[boundKey(p, p.Series)] = p
		}
		if p.Probe != "metrics" || !isQuantile(stat) {
			continue
		}
		if _, ok := l.quantiles[f]; !ok {
			l.families = append(l.families, &probeTable{caption: f, head: []string{"variant", "level", "labels"}, bounds: true})
		}
		if !slices.Contains(l.quantiles[f], stat) {
			l.quantiles[f] = append(l.quantiles[f], stat)
		}
	}
	for _, t := range l.families {
		q := l.quantiles[t.caption]
		slices.SortFunc(q, func(a, b string) int { return cmp.Compare(statOrder(a), statOrder(b)) })
		t.head = append(append(t.head, q...), "max")
	}
	return l
}

// boundKey identifies a series of p's variant, level and labels.
func boundKey(p analysis.ProbeStat, series string) string {
	return p.Variant + "\x00" + p.Level.String() + "\x00" + series + "\x00" + analysis.LabelKey(p.Labels)
}

// row returns t's row of p's variant and level named name, adding it,
// every cell "-", the first time.
func (l *probeLayout) row(t *probeTable, p analysis.ProbeStat, name string) []string {
	key := t.caption + "\x00" + p.Variant + "\x00" + p.Level.String() + "\x00" + name
	if r, ok := l.index[key]; ok {
		return r
	}
	r := []string{p.Variant, p.Level.String(), orDash(name)}
	for len(r) < len(t.head) {
		r = append(r, "-")
	}
	t.rows = append(t.rows, r)
	l.index[key] = r
	return r
}

// quantile sets p, a windowed quantile stat of a metric family, in its
// family's table, and the bucket it fell in when its bounds were read.
func (l *probeLayout) quantile(p analysis.ProbeStat, stat string) {
	f := p.Family()
	t := l.families[slices.IndexFunc(l.families, func(t *probeTable) bool { return t.caption == f })]
	w := l.row(t, p, labelText(p.Labels))
	cell := probeValue(p.Series, p.Median)
	if p.CIOK {
		cell += " [" + probeValue(p.Series, p.Lo) + ", " + probeValue(p.Series, p.Hi) + "]"
	}
	i := slices.Index(l.quantiles[f], stat)
	w[3+i] = cell
	w[len(w)-1] = probeValue(p.Series, p.Max) // quantiles come in rising order: the last is the highest
	loSeries, hiSeries := analysis.BucketSeries(f, stat)
	lo, ok := l.bounds[boundKey(p, loSeries)]
	if !ok {
		return
	}
	bt := l.buckets[f]
	if bt == nil {
		bt = &probeTable{caption: f + " — the bucket each quantile fell in",
			head: append([]string{"variant", "level", "labels"}, l.quantiles[f]...)}
		l.buckets[f] = bt
	}
	b := "> " + boundText(lo) // the +Inf bucket has no upper bound
	if hi, ok := l.bounds[boundKey(p, hiSeries)]; ok {
		b = "(" + boundText(lo) + ", " + boundText(hi) + "]"
	}
	l.row(bt, p, labelText(p.Labels))[3+i] = b
}

// boundText writes a bucket bound.
func boundText(p analysis.ProbeStat) string {
	if p.Median == 0 {
		return "0"
	}
	return probeValue(p.Series, p.Median)
}

// tables are the tables with rows: each family's, then the buckets its
// quantiles fell in, the processes, the other series.
func (l *probeLayout) tables() []probeTable {
	if l.pods {
		// A pod's memory is the working set the metrics API gives, not
		// a resident set read from /proc.
		l.procs.caption = "Processes and pods (a pod's memory: its working set, from the metrics API)"
		l.procs.head[5] = "memory max"
	}
	var out []probeTable
	var tables []*probeTable
	for _, t := range l.families {
		tables = append(tables, t)
		if b := l.buckets[t.caption]; b != nil {
			tables = append(tables, b)
		}
	}
	for _, t := range append(tables, l.procs, l.other) {
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
		"[lo, hi] after a quantile: the 95% interval of that median, from 6 counted runs on (none with fewer);\n" +
		"≤ marks a p100 (and its max) read from histogram buckets: the bound of the highest bucket that held\n" +
		"an observation, not a value measured. A quantile read from classic buckets is interpolated inside the\n" +
		"bucket its rank fell in, and the buckets tell nothing finer: the table after its family's names that\n" +
		"bucket (the median over points and runs of its bounds). Rates and traces are in the JSON report.\n")
	for _, t := range tables {
		b.WriteString("\n" + textsafe.Escape(t.caption) + "\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  "+strings.Join(escapeCells(t.head), "\t"))
		for _, row := range t.rows {
			if t.bounds {
				row = boundCells(t.head, row)
			}
			fmt.Fprintln(tw, "  "+strings.Join(escapeCells(row), "\t"))
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
