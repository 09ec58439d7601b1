package report

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/latlab/latlab/analysis"
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
	var ins []record.Interval
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
		ins = addToInterval(ins, s, rate)
		rec.Sent()
		rec.Record(0, s)
	}
	res := rec.Stop()
	res.Intervals = ins
	return res
}

// addToInterval counts s in the one-second interval of its intended send,
// opening intervals up to it, as a Recorder would on a wall clock.
func addToInterval(ins []record.Interval, s *record.Sample, rate float64) []record.Interval {
	sec := int(s.Intended / time.Second)
	for len(ins) <= sec {
		k := len(ins)
		ins = append(ins, record.Interval{Start: time.Duration(k) * time.Second, End: time.Duration(k+1) * time.Second,
			Latency: record.NewPacked(), Service: record.NewPacked(), InFlightMean: rate * (s.Done - s.Sent).Seconds(), InFlightMax: 3})
	}
	in := &ins[sec]
	in.Sent++
	in.Completed++
	switch {
	case s.Error != record.OK:
		in.Errors++
	case s.Code >= 400:
		in.Unsuccessful++
	}
	_ = in.Latency.RecordValue(int64(s.Done - s.Intended))
	_ = in.Service.RecordValue(int64(s.Done - s.Sent))
	return ins
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

func richDB(path string) error {
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	exp, err := db.CreateExperiment(ctx, store.Experiment{Name: "mesh-filter", Spec: richSpec,
		CreatedAt:  time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC),
		Provenance: store.Provenance{Host: "lab-2", LatlabVersion: "v0.0.0-test"}})
	if err != nil {
		return err
	}
	pos := 0
	for rep := 1; rep <= richReps; rep++ {
		for _, rate := range richRates {
			for vi, v := range richVariants {
				rng := rand.New(rand.NewPCG(uint64(vi+1), uint64(rate)*10+uint64(rep)))
				// A Recorder catches its intervals up from its start, so
				// the runs start now, not at some fixed date.
				start := time.Now()
				info := store.RunInfo{Trial: store.Trial{Variant: v, Rate: rate, Rep: rep},
					Position: pos, Status: store.Done, StartedAt: start, EndedAt: start.Add(richSeconds * time.Second)}
				drift := v == "filter" && rate == 400
				if drift {
					info.Flags = []store.Flag{{Name: "trend", Reason: "latency rises by 180µs over 1440 requests"}}
				}
				warm := richPhase(rng, start.Add(-time.Second), v, rate, 1, false, false)
				res := richPhase(rng, start, v, rate, richSeconds, drift, true)
				if _, err := db.WriteRun(ctx, exp.ID, info, res, warm, richProbes(rng, v, rate, start), richProfiles(rep, start)); err != nil {
					return fmt.Errorf("run %d: %w", pos, err)
				}
				pos++
			}
		}
	}
	return nil
}

// loadRich writes the rich fixture once per test binary and returns its
// database path and experiment.
var loadRich = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "latlab-html-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "results.db")
	return path, richDB(path)
})

// richReport opens the rich fixture and builds its report and detail.
func richReport(ctx context.Context, opt HTMLOptions) (*Experiment, *Detail, error) {
	path, err := loadRich()
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
	exp, err := analysis.Load(ctx, db, exps[0].ID)
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
