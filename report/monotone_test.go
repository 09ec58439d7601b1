package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// mixedRuns returns an experiment whose runs differ widely in latency and
// in sample count, so that each run has its own pattern of n/a
// percentiles, and some of which are flagged or unfinished. Every run's
// own percentiles are monotone: they come from one histogram.
func mixedRuns(rng *rand.Rand) *analysis.Experiment {
	exp := &analysis.Experiment{}
	counts := []int{1, 5, 15, 40, 150, 1200}
	id := int64(0)
	for _, v := range []string{"base", "hop"} {
		for _, rate := range []float64{10, 100} {
			reps := 3 + rng.IntN(6)
			for rep := range reps {
				id++
				n := counts[rng.IntN(len(counts))]
				scale := time.Duration(float64(time.Millisecond) * math.Exp(3*rng.Float64()))
				lat, svc := record.NewHistogram(), record.NewHistogram()
				for range n {
					d := time.Duration(float64(scale) * math.Exp(rng.NormFloat64()))
					_ = lat.RecordValue(int64(d))
					_ = svc.RecordValue(int64(d / 2))
				}
				r := analysis.Run{ID: id, Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate}, Rep: rep}, Status: store.Done,
					Requests: int64(n), Achieved: rate, RunPercentiles: analysis.ReadRun(lat, svc)}
				switch rng.IntN(5) {
				case 0:
					r.Flags = []store.Flag{{Name: "generator_saturated", Reason: "behind"}}
				case 1:
					r.Status = store.Interrupted
				}
				exp.Runs = append(exp.Runs, r)
			}
		}
	}
	return exp
}

// TestEveryTableMonotone renders every table of percentiles an experiment
// report prints (text, JSON latency and service time, CSV, the HTML
// summary) from runs with mixed n/a patterns, with and without the
// flagged runs, and checks that in every row p50 ≤ p90 ≤ p95 ≤ p99 ≤
// p99.9 ≤ max wherever both are numbers: a row's cells come from one set
// of runs.
func TestEveryTableMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	for i := range 60 {
		exp := mixedRuns(rng)
		for _, include := range []bool{false, true} {
			r, err := NewExperiment(exp, ExperimentOptions{IncludeFlagged: include})
			if err != nil {
				t.Fatal(err)
			}
			for name, rows := range reportRows(t, r) {
				for _, row := range rows {
					if err := monotone(row.values); err != nil {
						t.Fatalf("experiment %d, include flagged %v, %s row %s: %v", i, include, name, row.name, err)
					}
				}
			}
		}
	}
}

// tableRow is one row of a percentile table: its name and its values in
// spec.Stats order, NaN where the table shows no number.
type tableRow struct {
	name   string
	values []float64
}

// monotone returns an error when two numbers of row are out of order.
func monotone(row []float64) error {
	for i := range row {
		for j := i + 1; j < len(row); j++ {
			if !math.IsNaN(row[i]) && !math.IsNaN(row[j]) && row[i] > row[j] {
				return fmt.Errorf("%s %g > %s %g", spec.Stats[i].Name, row[i], spec.Stats[j].Name, row[j])
			}
		}
	}
	return nil
}

// reportRows renders r in every form and reads the percentile rows back,
// by form.
func reportRows(t *testing.T, r *Experiment) map[string][]tableRow {
	t.Helper()
	out := map[string][]tableRow{}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out["text"] = textRows(t, text.String())

	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc ExperimentJSON
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, l := range doc.Levels {
		for form, cells := range map[string]map[string]CellJSON{"json latency": l.Latency, "json service": l.Service} {
			row := tableRow{name: fmt.Sprintf("%s %g", l.Variant, l.Rate)}
			for _, s := range spec.Stats {
				v := math.NaN()
				if m := cells[jsonStat(s.Name)].Median; m != nil {
					v = *m
				}
				row.values = append(row.values, v)
			}
			out[form] = append(out[form], row)
		}
	}

	var c bytes.Buffer
	if err := r.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	byRow := map[string]int{}
	for _, rec := range recs[1:] {
		key := rec[0] + " " + rec[1] + " " + rec[2]
		i, ok := byRow[key]
		if !ok {
			i = len(out["csv"])
			byRow[key] = i
			out["csv"] = append(out["csv"], tableRow{name: key})
		}
		v := math.NaN()
		if rec[4] != "" {
			if v, err = strconv.ParseFloat(rec[4], 64); err != nil {
				t.Fatal(err)
			}
		}
		out["csv"][i].values = append(out["csv"][i].values, v)
	}

	for _, row := range r.summarySection().Tables[0].Rows {
		tr := tableRow{name: row[0].Text + " " + row[1].Text}
		for _, c := range row[2 : 2+len(spec.Stats)] {
			tr.values = append(tr.values, cellSeconds(t, c.Text))
		}
		out["html"] = append(out["html"], tr)
	}
	return out
}

var columns = regexp.MustCompile(`\s{2,}`)

// textRows reads the summary table of a text report.
func textRows(t *testing.T, text string) []tableRow {
	t.Helper()
	var rows []tableRow
	in := false
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "variant") && strings.Contains(line, "p99.9"):
			in = true
			continue
		case !in:
			continue
		case line == "":
			return rows
		}
		f := columns.Split(line, -1)
		tr := tableRow{name: f[0] + " " + f[1]}
		for _, c := range f[2 : 2+len(spec.Stats)] {
			tr.values = append(tr.values, cellSeconds(t, c))
		}
		rows = append(rows, tr)
	}
	return rows
}

// cellSeconds reads the median of a summary cell such as "~1.2ms [1ms,
// 2ms]" in seconds, NaN when it is not a number.
func cellSeconds(t *testing.T, cell string) float64 {
	t.Helper()
	f := strings.Fields(strings.TrimPrefix(cell, "~"))
	if len(f) == 0 || strings.HasPrefix(f[0], "n/a") {
		return math.NaN()
	}
	d, err := time.ParseDuration(f[0])
	if err != nil {
		t.Fatalf("cell %q: %v", cell, err)
	}
	return d.Seconds()
}

// TestProbeTableMonotone checks the probe summary's quantile tables: a
// run's windowed quantiles come from one set of buckets per window, so
// with windows and runs missing at random, every row's medians still
// read p50 ≤ p90 ≤ p99 ≤ p100 ≤ max.
func TestProbeTableMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 5))
	rows := 0
	for i := range 40 {
		exp := mixedRuns(rng)
		r, err := NewExperiment(exp, ExperimentOptions{IncludeFlagged: true})
		if err != nil {
			t.Fatal(err)
		}
		points := map[int64][]store.ProbePoint{}
		for _, run := range exp.Runs {
			if rng.IntN(4) == 0 {
				continue // no metrics from this run
			}
			scale := 1e-4 * math.Exp(3*rng.Float64())
			for w := range 1 + rng.IntN(20) {
				if rng.IntN(3) == 0 {
					continue // a window without observations has no quantile
				}
				qs := []float64{scale * rng.ExpFloat64(), scale * rng.ExpFloat64(), scale * rng.ExpFloat64(), scale * rng.ExpFloat64()}
				slices.Sort(qs)
				for j, name := range []string{"p50", "p90", "p99", "p100"} {
					points[run.ID] = append(points[run.ID], store.ProbePoint{Probe: "metrics", Series: "filter_duration_seconds:" + name,
						Time: time.Unix(int64(w), 0), Value: qs[j]})
				}
			}
		}
		for _, tab := range probeSummaryTables(probeStats(r.Levels, points)) {
			if tab.caption != "filter_duration_seconds" {
				continue
			}
			for _, row := range tab.rows {
				rows++
				var vals []float64
				for _, c := range row[3:] {
					vals = append(vals, cellSeconds(t, c))
				}
				for a := range vals {
					for b := a + 1; b < len(vals); b++ {
						if vals[a] > vals[b] {
							t.Fatalf("experiment %d, %v: %s %g > %s %g", i, row[:2], tab.head[3+a], vals[a], tab.head[3+b], vals[b])
						}
					}
				}
			}
		}
	}
	if rows < 40 {
		t.Errorf("%d rows checked; want the tables to have rows", rows)
	}
}
