package report

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/golden"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// The fixture: three variants at two rates, six runs each (six runs give
// a 95% CI of the median; three a side could not reach significance even
// within one quantile's Holm family: see TestExperimentFewRuns). filter is 50 µs slower than plain, proxy 100 µs;
// 200/s adds 20 µs to all; proxy fails 1 request in 150 at 200/s. Run 3 of
// filter at 200/s is flagged and 100 µs slower still. proxy and filter
// have expect:, filter with a percentile latlab does not read (p75).
var (
	fixtureVariants = []string{"plain", "proxy", "filter"}
	fixtureRates    = []float64{100, 200}
	fixtureBase     = map[string]time.Duration{"plain": 200 * time.Microsecond, "proxy": 300 * time.Microsecond, "filter": 250 * time.Microsecond}
)

const (
	fixtureReps    = 6
	fixtureSamples = 1000
	fixtureSpec    = "version: 1\nname: filter-overhead\nbaseline: plain\nvariants:\n  - name: plain\n" +
		"  - name: proxy\n    expect: {p50: 350µs}\n  - name: filter\n    expect: {p50: 290µs, p75: 300µs, p99.0: 500us}\n"
)

// fixtureRun records one run through a real Recorder: fixtureSamples
// requests at rate, each sent 2 µs late and taking base + a run offset of
// up to ±3 µs + an exponential tail of mean 50 µs.
func fixtureRun(variant string, rate float64, rep int, extra time.Duration) *record.Result {
	vi := map[string]uint64{"plain": 1, "proxy": 2, "filter": 3}[variant]
	rng := rand.New(rand.NewPCG(vi, uint64(rate)*100+uint64(rep)))
	base := fixtureBase[variant] + extra + time.Duration(rng.IntN(6001)-3000)
	if rate == 200 {
		base += 20 * time.Microsecond
	}
	rec := record.NewRecorder(time.Now(), record.Config{})
	for i := range fixtureSamples {
		s := &record.Sample{Intended: time.Duration(float64(i) * 1e9 / rate), Code: 200}
		s.Sent = s.Intended + 2*time.Microsecond
		s.Done = s.Sent + base + time.Duration(rng.ExpFloat64()*50e3)
		if variant == "proxy" && rate == 200 && i%150 == 7 {
			s.Code = 503
		}
		rec.Sent()
		rec.Record(0, s)
	}
	res := rec.Stop()
	res.Mode, res.TargetRate, res.Concurrency = "open", rate, 64
	return res
}

// fixtureDB writes the fixture to a new results database at path.
func fixtureDB(path string) error {
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	exp, err := db.CreateExperiment(ctx, store.Experiment{Name: "filter-overhead", Spec: fixtureSpec,
		CreatedAt:  time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
		Provenance: store.Provenance{Host: "lab-1", LatlabVersion: "v0.0.0-test"}})
	if err != nil {
		return err
	}
	pos := 0
	for rep := 1; rep <= fixtureReps; rep++ {
		for _, rate := range fixtureRates {
			for _, v := range fixtureVariants {
				info := store.RunInfo{Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate, Concurrency: 64}, Rep: rep},
					Position: pos, Status: store.Done, StartedAt: time.Now(), EndedAt: time.Now()}
				var extra time.Duration
				if v == "filter" && rate == 200 && rep == 3 {
					extra = 100 * time.Microsecond
					info.Flags = []store.Flag{{Name: "target_cpu_high", Reason: "target CPU 82% of 2 cores (budget 75%)"}}
				}
				if _, err := db.WriteRun(ctx, exp.ID, info, fixtureRun(v, rate, rep, extra), nil, nil, nil); err != nil {
					return err
				}
				pos++
			}
		}
	}
	return nil
}

// loadFixture writes the fixture to a database in a temporary folder and
// reads its experiment back for analysis, once per test binary: writing
// 36 runs takes seconds.
var loadFixture = sync.OnceValues(func() (*analysis.Experiment, error) {
	dir, err := os.MkdirTemp("", "latlab-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "results.db")
	if err := fixtureDB(path); err != nil {
		return nil, err
	}
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return loadDesigned(ctx, db, 1)
})

// fixture returns the fixture's experiment; callers must not modify it.
func fixture(t testing.TB) *analysis.Experiment {
	t.Helper()
	exp, err := loadFixture()
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

func newFixture(t *testing.T, exp *analysis.Experiment, opt ExperimentOptions) *Experiment {
	t.Helper()
	r, err := NewExperiment(exp, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkGolden compares got with testdata/experiment/name (see
// golden.Check).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "experiment", name), []byte(got))
}

func TestExperimentGolden(t *testing.T) {
	exp := fixture(t)
	slo, err := analysis.ParseSLO("p50<330µs,p99<600µs,errors<0.5%")
	if err != nil {
		t.Fatal(err)
	}
	plain := newFixture(t, exp, ExperimentOptions{})
	gated := newFixture(t, exp, ExperimentOptions{SLO: slo})
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"report.txt", func(b *bytes.Buffer) error { return plain.WriteText(b) }},
		{"report.json", func(b *bytes.Buffer) error { return plain.WriteJSON(b) }},
		{"report.csv", func(b *bytes.Buffer) error { return plain.WriteCSV(b) }},
		{"overhead.csv", func(b *bytes.Buffer) error { return plain.WriteOverheadCSV(b) }},
		{"slo.txt", func(b *bytes.Buffer) error { return gated.WriteText(b) }},
		{"slo.json", func(b *bytes.Buffer) error { return gated.WriteJSON(b) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name, b.String())
		})
	}
}

func TestExperimentOverhead(t *testing.T) {
	r := newFixture(t, fixture(t), ExperimentOptions{})
	if r.Baseline != "plain" {
		t.Fatalf("baseline %q; want plain, the spec's", r.Baseline)
	}
	if got, want := r.Variants(), []string{"plain", "proxy", "filter"}; !cmp.Equal(got, want) {
		t.Errorf("variants %v; want the spec's order %v", got, want)
	}
	found := 0
	for _, c := range r.Overheads {
		if c.Variant != "filter" || c.Name != "p50" {
			continue
		}
		found++
		d := c.Diff
		if !d.Significant || !d.CIOK {
			t.Errorf("filter %s p50: %s; want significant with a CI", c.Level, d)
		}
		if d.Abs < 45e-6 || d.Abs > 55e-6 || d.AbsLo > 50e-6 || d.AbsHi < 50e-6 {
			t.Errorf("filter %s p50: %+.1fµs [%+.1f, %+.1f]; want about +50µs, CI covering it", c.Level, d.Abs*1e6, d.AbsLo*1e6, d.AbsHi*1e6)
		}
	}
	if found != 2 {
		t.Errorf("%d filter p50 rows; want one per rate", found)
	}
}

func TestExperimentFlagged(t *testing.T) {
	exp := fixture(t)
	for _, include := range []bool{false, true} {
		r := newFixture(t, exp, ExperimentOptions{IncludeFlagged: include})
		if r.Runs.Flagged != 1 || r.Runs.Done != 36 || r.Runs.Total != 36 {
			t.Errorf("run counts %+v; want 36 done, 1 flagged", r.Runs)
		}
		for _, l := range r.Levels {
			wantRuns, wantExcl := fixtureReps, 0
			if l.Variant == "filter" && l.Rate == 200 && !include {
				wantRuns, wantExcl = fixtureReps-1, 1
			}
			if len(l.RunIDs) != wantRuns || l.Excluded != wantExcl {
				t.Errorf("include %v, %s %s: %d runs, %d excluded; want %d, %d", include, l.Variant, l.Level,
					len(l.RunIDs), l.Excluded, wantRuns, wantExcl)
			}
		}
		fl := r.Flags("filter", analysis.Level{Rate: 200, Concurrency: 64})
		if len(fl) != 1 || fl[0].Name != "target_cpu_high" || fl[0].Count != 1 || !strings.Contains(fl[0].Example, "82%") {
			t.Errorf("flags %+v; want target_cpu_high once with its reason", fl)
		}
	}
}

func TestExperimentBadBaseline(t *testing.T) {
	_, err := NewExperiment(fixture(t), ExperimentOptions{Baseline: "nginx"})
	if err == nil || !strings.Contains(err.Error(), `"nginx"`) {
		t.Errorf("err %v; want one naming the baseline", err)
	}
}
