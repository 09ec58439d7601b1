package report

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// The rich fixture is a study as latlab run stores it, for the HTML
// report: three variants at three rates, five runs each, every run with a
// warm-up, per-second intervals, raw samples, process and filter metrics,
// traces and a CPU profile. Its spec has no expect:. proxy adds 40 µs, filter 90 µs and drifts
// upward in its runs at 400/s.
var (
	richVariants = []string{"plain", "proxy", "filter"}
	richRates    = []float64{100, 200, 400}
	richBase     = map[string]time.Duration{"plain": 300 * time.Microsecond, "proxy": 340 * time.Microsecond, "filter": 390 * time.Microsecond}
)

const (
	richReps    = 5
	richSeconds = 4
	richSpec    = "version: 1\nname: mesh-filter\nbaseline: plain\nvariants:\n  - name: plain\n  - name: proxy\n  - name: filter\nvalidity: {cpu_budget: 60%}\n"
)

// richPhase builds one phase's Result by hand, one interval per second:
// a Recorder closes intervals on the wall clock, and the fixture's
// requests take no wall-clock time at all.
func richPhase(rng *rand.Rand, start time.Time, variant string, rate float64, seconds int, drift bool, keepRaw bool) *record.Result {
	rec := record.NewRecorder(start, record.Config{KeepRaw: map[bool]int64{true: 1 << 20}[keepRaw]})
	n := int(rate) * seconds
	base := richBase[variant] + time.Duration(rng.IntN(8001)-4000)
	var ins series
	for i := range n {
		s := &record.Sample{Intended: time.Duration(float64(i) * 1e9 / rate), Code: 200}
		s.Sent = s.Intended + time.Duration(rng.IntN(3000))
		lat := base + time.Duration(rng.ExpFloat64()*60e3)
		if drift {
			lat += time.Duration(float64(i) / float64(n) * 200e3)
		}
		s.Done = s.Sent + lat
		if variant == "proxy" && rate == 400 && i%97 == 5 {
			s.Code = 503
		}
		ins.add(s, rate)
		rec.Sent()
		rec.Record(0, s)
	}
	res := rec.Stop()
	res.Intervals = ins.kept()
	return res
}

// A series builds a run's intervals by hand, one sample at a time.
type series struct {
	ins      []record.Interval
	lat, svc []*hdr.PackedHistogram
}

// add counts s in the one-second interval of its intended send, opening
// intervals up to it, as a Recorder would on a wall clock.
func (ss *series) add(s *record.Sample, rate float64) {
	sec := int(s.Intended / time.Second)
	for len(ss.ins) <= sec {
		k := len(ss.ins)
		ss.ins = append(ss.ins, record.Interval{Start: time.Duration(k) * time.Second, End: time.Duration(k+1) * time.Second,
			InFlightMean: rate * (s.Done - s.Sent).Seconds(), InFlightMax: 3})
		ss.lat, ss.svc = append(ss.lat, record.NewPacked()), append(ss.svc, record.NewPacked())
	}
	in := &ss.ins[sec]
	in.Sent++
	in.Completed++
	switch {
	case s.Error != record.OK:
		in.Errors++
	case s.Code >= 400:
		in.Unsuccessful++
	}
	_ = ss.lat[sec].RecordValue(int64(s.Done - s.Intended))
	_ = ss.svc[sec].RecordValue(int64(s.Done - s.Sent))
}

// kept returns the intervals with their histograms kept.
func (ss *series) kept() []record.Interval {
	for i := range ss.ins {
		ss.ins[i].Latency, ss.ins[i].Service = mustKeep(ss.lat[i]), mustKeep(ss.svc[i])
	}
	return ss.ins
}

// mustKeep returns h kept, and panics if it cannot be encoded.
func mustKeep(h *hdr.PackedHistogram) record.Kept {
	k, err := record.Keep(h)
	if err != nil {
		panic(err)
	}
	return k
}

// richProfiles is the CPU profile the first repetition of every run
// carries; later ones carry none.
func richProfiles(rep int, start time.Time) []store.Profile {
	if rep != 1 {
		return nil
	}
	return []store.Profile{{Target: "root", Kind: "cpu", TakenAt: start, Duration: time.Second, Unit: "nanoseconds",
		Data: []byte("not a real profile"),
		Top: []store.ProfileFunc{{Function: "net/http.(*conn).serve", Flat: 4e6, Cum: 9e7},
			{Function: "github.com/latlab/latlab/middleware.Delay", Flat: 2e6, Cum: 3e6}}}}
}

// richProbes are a run's side measurements: the target's and latlab's
// CPU against the budget and their memory; for filter, two filters'
// latency quantiles and observation rates from the target's metrics, one
// taking microseconds and one a hundred times longer; and trace hops.
func richProbes(rng *rand.Rand, variant string, rate float64, start time.Time) []store.ProbePoint {
	var out []store.ProbePoint
	procs := []map[string]string{{"pid": "4242", "role": "target", "comm": "latlab-node"}, {"pid": "4100", "role": "latlab", "comm": "latlab"}}
	filters := []struct {
		labels map[string]string
		scale  float64
	}{
		{map[string]string{"filter": "delay", "instance": "127.0.0.1:9100"}, 1},
		{map[string]string{"filter": "passthrough", "instance": "127.0.0.1:9100"}, 0.02},
	}
	quantiles := []struct {
		name  string
		value float64
	}{{"p90", 80e-6}, {"p99", 95e-6}, {"p100", 140e-6}}
	for s := range richSeconds {
		at := start.Add(time.Duration(s) * time.Second)
		for i, proc := range procs {
			out = append(out, store.ProbePoint{Probe: "process", Series: "cpu_allowed_percent", Labels: proc, Time: at, Value: 30 + 10*rng.Float64() - 20*float64(i)},
				store.ProbePoint{Probe: "process", Series: "rss_bytes", Labels: proc, Time: at, Value: float64(40<<20 + rng.IntN(1<<20) + i<<23)})
		}
		if variant != "filter" {
			continue
		}
		out = append(out, store.ProbePoint{Probe: "metrics", Series: "up", Labels: map[string]string{"instance": "127.0.0.1:9100"}, Time: at, Value: 1})
		for _, f := range filters {
			for _, q := range quantiles {
				out = append(out, store.ProbePoint{Probe: "metrics", Series: "latlab_filter_duration_seconds:" + q.name, Labels: f.labels, Time: at,
					Value: q.value * f.scale * (1 + 0.1*rng.Float64())})
			}
			out = append(out, store.ProbePoint{Probe: "metrics", Series: "latlab_filter_duration_seconds:rate", Labels: f.labels, Time: at,
				Value: rate * (0.95 + 0.1*rng.Float64())})
		}
	}
	hop := map[string]string{"caller": "gateway", "callee": "root"}
	for i := range 300 {
		at := start.Add(time.Duration(i) * 10 * time.Millisecond)
		out = append(out, store.ProbePoint{Probe: "traces", Series: "network_seconds", Labels: hop, Time: at, Value: 20e-6 + 10e-6*rng.Float64()},
			store.ProbePoint{Probe: "traces", Series: "framework_seconds", Labels: hop, Time: at, Value: 5e-6 + 5e-6*rng.Float64()})
	}
	return out
}

// A study is an experiment for the HTML report's tests: its variants, each
// run at each rate richReps times, and what its probes add to the rich
// fixture's.
type study struct {
	name, spec string
	variants   []string
	rates      []float64
	// tail gives the traced network hop a tail of 100 ms past its p99,
	// whiskers far beyond the bars of microseconds.
	tail bool
	// ratio adds latlab_work_ratio, a classic histogram whose p100 is the
	// bound of its last buckets, 500% and 1000%.
	ratio bool
	// filling makes the observation rates read half as much while the
	// scraper's window (the spec's, 2s) is not yet full.
	filling bool
	// reps is the runs of each variant at each rate; 0 means richReps.
	reps int
	// flagged flags every run too_few_samples and one in four
	// generator_saturated, which leaves it out: a long flags column.
	flagged bool
}

var (
	richFixture = study{name: "mesh-filter", spec: richSpec, variants: richVariants, rates: richRates}
	// oneLevel ran two variants at one rate only, 8 times each (enough
	// for CIs in the summary), every run flagged.
	oneLevel = study{name: "one-level", variants: []string{"plain", "proxy"}, rates: []float64{100}, reps: 8, flagged: true,
		spec: "version: 1\nname: one-level\nbaseline: plain\nvariants:\n  - name: plain\n  - name: proxy\n"}
	// oneVariant ran a lone variant, with a heavy-tailed hop, the work
	// ratio and a scraper window that fills during the runs.
	oneVariant = study{name: "one-variant", variants: []string{"filter"}, rates: []float64{100, 200}, tail: true, ratio: true, filling: true,
		spec: "version: 1\nname: one-variant\nvariants:\n  - name: filter\nprobes:\n  metrics: {interval: 1s, window: 2s}\n  traces: true\n"}
)

func richDB(path string) error { return studyDB(path, richFixture) }

// studyDB writes f into a new database at path.
func studyDB(path string, f study) error {
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	exp, err := db.CreateExperiment(ctx, store.Experiment{Name: f.name, Spec: f.spec,
		CreatedAt:  time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC),
		Provenance: store.Provenance{Host: "lab-2", LatlabVersion: "v0.0.0-test"}})
	if err != nil {
		return err
	}
	pos := 0
	for rep := 1; rep <= cmp.Or(f.reps, richReps); rep++ {
		for _, rate := range f.rates {
			for vi, v := range f.variants {
				rng := rand.New(rand.NewPCG(uint64(vi+1), uint64(rate)*10+uint64(rep)))
				// A Recorder catches its intervals up from its start, so
				// the runs start now, not at some fixed date.
				start := time.Now()
				info := store.RunInfo{Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate}, Rep: rep},
					Position: pos, Status: store.Done, StartedAt: start, EndedAt: start.Add(richSeconds * time.Second)}
				drift := v == "filter" && rate == 400
				if drift {
					info.Flags = []store.Flag{{Name: "trend", Reason: "service time rises by 180µs over 1440 requests"}}
				}
				if f.flagged {
					info.Flags = append(info.Flags, store.Flag{Name: "too_few_samples", Reason: "400 samples, p99.9 needs 1000"})
					if rep%4 == 0 {
						info.Flags = append(info.Flags, store.Flag{Name: "generator_saturated", Reason: "the load generator fell 12% behind its schedule"})
					}
				}
				warm := richPhase(rng, start.Add(-time.Second), v, rate, 1, false, false)
				res := richPhase(rng, start, v, rate, richSeconds, drift, true)
				probes := f.adjust(rng, richProbes(rng, v, rate, start), start)
				if _, err := db.WriteRun(ctx, exp.ID, info, res, warm, probes, richProfiles(rep, start)); err != nil {
					return fmt.Errorf("run %d: %w", pos, err)
				}
				pos++
			}
		}
	}
	return nil
}

// adjust changes a run's probe points as f says.
func (f study) adjust(rng *rand.Rand, ps []store.ProbePoint, start time.Time) []store.ProbePoint {
	for i := range ps {
		p := &ps[i]
		if f.tail && p.Series == "network_seconds" && i%50 == 0 {
			p.Value = 0.1
		}
		if f.filling && strings.HasSuffix(p.Series, ":rate") && p.Time.Sub(start) < 2*time.Second {
			p.Value /= 2
		}
	}
	if f.ratio {
		labels := map[string]string{"kind": "busywork", "instance": "127.0.0.1:9100"}
		for s := range richSeconds {
			at := start.Add(time.Duration(s) * time.Second)
			for _, q := range []struct {
				name  string
				value float64
			}{{"p90", 1 + 0.01*rng.Float64()}, {"p99", 1.5}, {"p100", []float64{5, 10}[s%2]}} {
				ps = append(ps, store.ProbePoint{Probe: "metrics", Series: "latlab_work_ratio:" + q.name, Labels: labels, Time: at, Value: q.value})
			}
		}
	}
	return ps
}

// loadRich writes the rich fixture once per test binary and returns its
// database path.
var loadRich = loadStudy(richFixture)

// loadStudy returns a function that writes f once per test binary and
// returns its database path.
func loadStudy(f study) func() (string, error) {
	return sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "latlab-html-")
		if err != nil {
			return "", err
		}
		path := filepath.Join(dir, "results.db")
		return path, studyDB(path, f)
	})
}

// richReport opens the rich fixture and builds its report and detail.
func richReport(ctx context.Context, opt HTMLOptions) (*Experiment, *Detail, error) {
	return studyReport(ctx, loadRich, opt)
}

// studyReport opens the study load writes and builds its report and
// detail.
func studyReport(ctx context.Context, load func() (string, error), opt HTMLOptions) (*Experiment, *Detail, error) {
	path, err := load()
	if err != nil {
		return nil, nil, err
	}
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	exps, err := db.Experiments(ctx)
	if err != nil {
		return nil, nil, err
	}
	exp, err := loadDesigned(ctx, db, exps[0].ID)
	if err != nil {
		return nil, nil, err
	}
	r, err := NewExperiment(exp, ExperimentOptions{})
	if err != nil {
		return nil, nil, err
	}
	d, err := LoadDetail(ctx, db, r, opt)
	return r, d, err
}
